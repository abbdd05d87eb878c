package builtins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
)

// Answer is the verdict on one object (the protocol's answer, doc.go).
type Answer struct {
	Served   bool     `json:"served"`
	Valid    bool     `json:"valid"`
	Reason   string   `json:"reason,omitempty"`
	Message  string   `json:"message,omitempty"`
	Causes   []Cause  `json:"causes,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// Cause is one cause of a refusal: the apiserver's status cause.
type Cause struct {
	Type    string `json:"type"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// kindEntry is how the apiserver creates one kind: the resource (its
// plural, for the request info declarative validation reads) and the
// registry strategy of its storage.
type kindEntry struct {
	resource string
	strategy rest.RESTCreateStrategy
}

// kinds maps each judged group and kind to its entry; every version of it
// the scheme recognizes is judged (validate sends only the versions the
// target minor serves). Read only.
var kinds = map[schema.GroupKind]kindEntry{
	{Group: "", Kind: "Pod"}:                                                        {"pods", pod.Strategy},
	{Group: "", Kind: "ConfigMap"}:                                                  {"configmaps", configmap.Strategy},
	{Group: "", Kind: "Secret"}:                                                     {"secrets", secret.Strategy},
	{Group: "", Kind: "Service"}:                                                    {"services", service.Strategy},
	{Group: "", Kind: "ServiceAccount"}:                                             {"serviceaccounts", serviceaccount.Strategy},
	{Group: "", Kind: "Namespace"}:                                                  {"namespaces", namespace.Strategy},
	{Group: "", Kind: "PersistentVolumeClaim"}:                                      {"persistentvolumeclaims", persistentvolumeclaim.Strategy},
	{Group: "", Kind: "PersistentVolume"}:                                           {"persistentvolumes", persistentvolume.Strategy},
	{Group: "", Kind: "ResourceQuota"}:                                              {"resourcequotas", resourcequota.Strategy},
	{Group: "", Kind: "LimitRange"}:                                                 {"limitranges", limitrange.Strategy},
	{Group: "", Kind: "ReplicationController"}:                                      {"replicationcontrollers", replicationcontroller.Strategy},
	{Group: "", Kind: "PodTemplate"}:                                                {"podtemplates", podtemplate.Strategy},
	{Group: "", Kind: "Endpoints"}:                                                  {"endpoints", endpoint.Strategy},
	{Group: "apps", Kind: "Deployment"}:                                             {"deployments", deployment.Strategy},
	{Group: "apps", Kind: "StatefulSet"}:                                            {"statefulsets", statefulset.Strategy},
	{Group: "apps", Kind: "DaemonSet"}:                                              {"daemonsets", daemonset.Strategy},
	{Group: "apps", Kind: "ReplicaSet"}:                                             {"replicasets", replicaset.Strategy},
	{Group: "apps", Kind: "ControllerRevision"}:                                     {"controllerrevisions", controllerrevision.Strategy},
	{Group: "batch", Kind: "Job"}:                                                   {"jobs", job.Strategy},
	{Group: "batch", Kind: "CronJob"}:                                               {"cronjobs", cronjob.Strategy},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                              {"roles", role.Strategy},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                       {"rolebindings", rolebinding.Strategy},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                       {"clusterroles", clusterrole.Strategy},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                {"clusterrolebindings", clusterrolebinding.Strategy},
	{Group: "networking.k8s.io", Kind: "Ingress"}:                                   {"ingresses", ingress.Strategy},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                              {"ingressclasses", ingressclass.Strategy},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                             {"networkpolicies", networkpolicy.Strategy},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                  {"poddisruptionbudgets", poddisruptionbudget.Strategy},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                         {"horizontalpodautoscalers", horizontalpodautoscaler.Strategy},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                 {"storageclasses", storageclass.Strategy},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                    {"csidrivers", csidriver.Strategy},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                             {"priorityclasses", priorityclass.Strategy},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                                   {"leases", lease.Strategy},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                              {"endpointslices", endpointslice.Strategy},
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                    {"runtimeclasses", runtimeclass.Strategy},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: {"validatingwebhookconfigurations", validatingwebhookconfiguration.Strategy},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   {"mutatingwebhookconfigurations", mutatingwebhookconfiguration.Strategy},
}

// jsonStrict is the strict JSON serializer of the legacy scheme's codecs:
// what the apiserver decodes a create with under fieldValidation=Strict.
var jsonStrict = sync.OnceValue(func() runtime.Serializer {
	for _, info := range legacyscheme.Codecs.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON {
			return info.StrictSerializer
		}
	}
	panic("the legacy scheme has no JSON serializer")
})

// Field validation directives: what an unknown or duplicate field is.
const (
	FieldValidationStrict = "Strict" // a BadRequest (kubectl's default)
	FieldValidationWarn   = "Warn"   // a warning, the object judged without it
	FieldValidationIgnore = "Ignore" // nothing
)

// Judge judges one object, as JSON, as the apiserver judges a create of
// it with fieldValidation=Strict (doc.go, # Judge).
func Judge(body []byte) Answer { return JudgeWith(body, FieldValidationStrict) }

// JudgeWith judges one object, as JSON, as the apiserver judges a create
// of it with the field validation directive ("" is Strict).
func JudgeWith(body []byte, fieldValidation string) (ans Answer) {
	var tm metav1.TypeMeta
	if err := json.Unmarshal(body, &tm); err != nil {
		return Answer{Served: true, Reason: string(metav1.StatusReasonBadRequest), Message: err.Error()}
	}
	gvk := tm.GroupVersionKind()
	entry, ok := kinds[gvk.GroupKind()]
	if !ok || !legacyscheme.Scheme.Recognizes(gvk) {
		return Answer{}
	}
	ans.Served = true
	var recorded warnings
	defer func() {
		// A panic of the apiserver's code is its 500, never a pass.
		if p := recover(); p != nil {
			ans = refusal(apierrors.NewInternalError(fmt.Errorf("%v", p)))
		}
		ans.Warnings = recorded.list
	}()
	internal := schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal}
	decoder := legacyscheme.Codecs.DecoderToVersion(jsonStrict(), internal)
	obj, got, err := decoder.Decode(body, &gvk, nil)
	if err != nil {
		// As the create handler: under Warn a strict decoding error is
		// warnings, under Ignore nothing; anything else refuses.
		strict, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && fieldValidation == FieldValidationWarn:
			for _, e := range strict.Errors() {
				recorded.AddWarning("", e.Error())
			}
		case isStrict && obj != nil && fieldValidation == FieldValidationIgnore:
		default:
			return decodeRefusal(err, got)
		}
	}
	accessor, err := meta.Accessor(obj)
	if err != nil {
		return refusal(apierrors.NewBadRequest(err.Error()))
	}
	ns := ""
	if entry.strategy.NamespaceScoped() {
		ns = accessor.GetNamespace()
		if ns == "" {
			ns = metav1.NamespaceDefault
		}
	}
	ctx := genericapirequest.WithNamespace(context.Background(), ns)
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: ns, Resource: entry.resource, Name: accessor.GetName(),
	})
	ctx = warning.WithWarningRecorder(ctx, &recorded)
	// What the generic registry's Create does before BeforeCreate.
	rest.FillObjectMetaSystemFields(accessor)
	if accessor.GetGenerateName() != "" && accessor.GetName() == "" {
		accessor.SetName(entry.strategy.GenerateName(accessor.GetGenerateName()))
	}
	if err := rest.BeforeCreate(entry.strategy, ctx, obj); err != nil {
		return refusal(err)
	}
	return Answer{Served: true, Valid: true}
}

// warnings records the warnings of one create, each once, in order.
type warnings struct{ list []string }

func (w *warnings) AddWarning(_, text string) {
	if text != "" && !slices.Contains(w.list, text) {
		w.list = append(w.list, text)
	}
}

// refusal is the answer of an apiserver error: its status.
func refusal(err error) Answer {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		status = apierrors.NewInternalError(err)
	}
	s := status.Status()
	ans := Answer{Served: true, Reason: string(s.Reason), Message: s.Message}
	if s.Details != nil {
		for _, c := range s.Details.Causes {
			ans.Causes = append(ans.Causes, Cause{Type: string(c.Type), Field: c.Field, Message: c.Message})
		}
	}
	return ans
}

// causeUnknownField is the cause type of an unknown field (the apiserver's
// strict decoding error names it in its message alone).
const causeUnknownField = "FieldValueUnknown"

// goStructField finds the field of a decoding error's message:
// `cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`.
var goStructField = regexp.MustCompile(`Go struct field \w+\.(\S+) of type`)

// decodeRefusal is the apiserver's answer to an error decoding a create
// (its create handler's transformDecodeError): a BadRequest, with a cause
// for each strict decoding error and for the field of a type error.
func decodeRefusal(err error, gvk *schema.GroupVersionKind) Answer {
	if strict, ok := runtime.AsStrictDecodingError(err); ok {
		ans := refusal(apierrors.NewBadRequest(err.Error()))
		for _, e := range strict.Errors() {
			msg := e.Error()
			typ, fld := "", ""
			switch {
			case strings.HasPrefix(msg, "unknown field "):
				typ, fld = causeUnknownField, unquote(strings.TrimPrefix(msg, "unknown field "))
			case strings.HasPrefix(msg, "duplicate field "):
				typ, fld = string(metav1.CauseTypeFieldValueDuplicate), unquote(strings.TrimPrefix(msg, "duplicate field "))
			default:
				typ = string(metav1.CauseTypeFieldValueInvalid)
			}
			ans.Causes = append(ans.Causes, Cause{Type: typ, Field: fld, Message: msg})
		}
		return ans
	}
	kind := ""
	if gvk != nil {
		kind = gvk.Kind
	}
	msg := err.Error()
	if kind != "" {
		msg = fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, gvk.Version, kind, err)
	}
	ans := refusal(apierrors.NewBadRequest(msg))
	if m := goStructField.FindStringSubmatch(msg); m != nil {
		ans.Causes = append(ans.Causes, Cause{Type: string(metav1.CauseTypeTypeInvalid), Field: m[1], Message: err.Error()})
	}
	return ans
}

// unquote strips the quotes of a strict decoding error's field.
func unquote(s string) string {
	var out string
	if json.Unmarshal([]byte(s), &out) == nil {
		return out
	}
	return strings.Trim(s, `"`)
}
