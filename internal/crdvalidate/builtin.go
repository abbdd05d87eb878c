package crdvalidate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/suggest"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/resolver"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// Kubernetes' own kinds (built-in objects) are judged by their schema only:
// each kind's definition in the embedded bundle of the target minor (the
// one whose x-kubernetes-group-version-kind names the object's group,
// version and kind) is compiled, as a CRD template `$ref`ing it would be,
// into the CRD of a custom resource of that group, version and kind, and
// the object is judged as a create request of that custom resource
// (oracle.CRD.Create): unknown fields (Strict), types, required fields,
// enums, formats, int-or-string, quantities, list-map keys and duplicates
// (the duplicates a create of the kind accepts are warnings: duplicates.go),
// and ObjectMeta as the apiserver validates it. The apiserver's hand-written
// validation of each kind (allowed values, names per kind, cross-field
// rules) is not in any schema: k8s-crd-resolver-builtins runs it
// when installed (handwritten.go), and judges the object alone then; each
// kind judged by its schema alone says so, and why (schemaOnlyNotes).

// builtinIndex is what one minor's bundle defines: its kinds by group,
// version and kind, to the definition of each. Read only once built.
type builtinIndex struct {
	minor string
	def   map[schema.GroupVersionKind]string
	// versions lists, by group and kind, the versions the minor serves.
	versions map[schema.GroupKind][]string
	// kinds lists, by group, the kinds the minor serves (for did you mean).
	kinds map[string][]string
}

// builtins caches the index of each minor and the CRD compiled for each
// (minor, group, version, kind): a stream of many objects of a few kinds
// compiles each kind once. Entries are built once and never modified.
type builtins struct {
	mu      sync.Mutex
	indexes map[string]*onceIndex
	crds    map[builtinKey]*onceCRD
}

type builtinKey struct {
	minor string
	gvk   schema.GroupVersionKind
}

type onceIndex struct {
	once sync.Once
	idx  *builtinIndex
	err  error
}

type onceCRD struct {
	once sync.Once
	crd  *oracle.CRD
	err  error
}

// builtinCache is shared by every call of Files in the process: what it
// holds depends only on the embedded bundles.
var builtinCache = &builtins{indexes: map[string]*onceIndex{}, crds: map[builtinKey]*onceCRD{}}

// index returns the index of minor ("" the newest embedded).
func (b *builtins) index(minor string) (*builtinIndex, error) {
	if minor == "" {
		minor = schemas.Latest()
	}
	canon, err := schemas.Canonical(minor)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	e, ok := b.indexes[canon]
	if !ok {
		e = &onceIndex{}
		b.indexes[canon] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.idx, e.err = buildIndex(canon) })
	return e.idx, e.err
}

// buildIndex reads every definition of the minor's bundle once.
func buildIndex(minor string) (*builtinIndex, error) {
	bundle, err := schemas.Load(minor)
	if err != nil {
		return nil, err
	}
	idx := &builtinIndex{minor: minor, def: map[schema.GroupVersionKind]string{}, versions: map[schema.GroupKind][]string{}, kinds: map[string][]string{}}
	var buf []byte
	for _, name := range bundle.Names() {
		buf, err = bundle.AppendDefinition(buf[:0], name)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(buf), "x-kubernetes-group-version-kind") {
			continue
		}
		var d struct {
			GVK []struct{ Group, Version, Kind string } `json:"x-kubernetes-group-version-kind"`
		}
		if err := json.Unmarshal(buf, &d); err != nil {
			return nil, fmt.Errorf("schemas: Kubernetes %s: %s: %w", minor, name, err)
		}
		// A definition of many kinds (DeleteOptions, WatchEvent) is no
		// object one creates.
		if len(d.GVK) != 1 {
			continue
		}
		g := d.GVK[0]
		if strings.HasSuffix(g.Kind, "List") || !isObjectDefinition(buf) {
			continue
		}
		gvk := schema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
		if offFrom116(gvk) && schemas.CompareMinors(minor, "1.16") >= 0 {
			continue
		}
		if _, dup := idx.def[gvk]; dup {
			continue // names are sorted: the first wins
		}
		idx.def[gvk] = name
		gk := gvk.GroupKind()
		if len(idx.versions[gk]) == 0 {
			idx.kinds[gk.Group] = append(idx.kinds[gk.Group], gk.Kind)
		}
		idx.versions[gk] = append(idx.versions[gk], gvk.Version)
	}
	for _, ks := range idx.kinds {
		slices.Sort(ks)
	}
	return idx, nil
}

// offFrom116 reports whether gvk is one of the versions Kubernetes 1.16
// stopped serving (apps/v1beta1 and apps/v1beta2, and extensions/v1beta1
// but for Ingress), whose definitions 1.16 and 1.17 still publish: their
// apiservers serve them only when --runtime-config turns them back on.
func offFrom116(gvk schema.GroupVersionKind) bool {
	switch gvk.GroupVersion().String() {
	case "apps/v1beta1", "apps/v1beta2":
		return true
	case "extensions/v1beta1":
		return gvk.Kind != "Ingress"
	}
	return false
}

// isObjectDefinition reports whether the definition has metadata: an
// object one creates, not a request or review type without one (Status).
func isObjectDefinition(def []byte) bool {
	var d struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(def, &d) != nil {
		return false
	}
	_, ok := d.Properties["metadata"]
	return ok
}

// crd returns the CRD compiled from the minor's definition of gvk.
func (b *builtins) crd(idx *builtinIndex, gvk schema.GroupVersionKind) (*oracle.CRD, error) {
	key := builtinKey{idx.minor, gvk}
	b.mu.Lock()
	e, ok := b.crds[key]
	if !ok {
		e = &onceCRD{}
		b.crds[key] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.crd, e.err = compileBuiltin(idx.minor, idx.def[gvk], gvk) })
	return e.crd, e.err
}

// compileBuiltin compiles the CRD of the built-in kind gvk from its
// definition in minor's bundle, as a template `$ref`ing it compiles.
func compileBuiltin(minor, def string, gvk schema.GroupVersionKind) (*oracle.CRD, error) {
	plural := strings.ToLower(gvk.Kind) + "s"
	scope := "Namespaced"
	if clusterScoped[gvk.GroupKind()] {
		scope = "Cluster"
	}
	// Before 1.16 a CRD is apiextensions.k8s.io/v1beta1, its schema in
	// spec.validation.
	v1 := schemas.CompareMinors(minor, "1.16") >= 0
	ref := map[string]any{"openAPIV3Schema": map[string]any{"$ref": def}}
	version := map[string]any{"name": gvk.Version, "served": true, "storage": true}
	spec := map[string]any{
		"group":    gvk.Group,
		"names":    map[string]any{"kind": gvk.Kind, "plural": plural, "listKind": gvk.Kind + "List"},
		"scope":    scope,
		"versions": []any{version},
	}
	apiVersion := "apiextensions.k8s.io/v1"
	if v1 {
		version["schema"] = ref
	} else {
		apiVersion = "apiextensions.k8s.io/v1beta1"
		spec["validation"] = ref
	}
	template := map[string]any{
		"apiVersion": apiVersion,
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + gvk.Group},
		"spec":       spec,
	}
	src, err := json.Marshal(template)
	if err != nil {
		return nil, err
	}
	c, err := resolver.New(resolver.Options{KubeVersion: minor, RemoveDescriptions: true, Recursion: resolver.RecursionPreserve, WorkDir: "/", AllowRemovedAPI: true})
	if err != nil {
		return nil, err
	}
	res, err := c.Compile("builtin-"+plural+".json", src)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema of %s: %w", def, err)
	}
	if len(res.Documents) != 1 {
		return nil, fmt.Errorf("compiling the schema of %s: %d documents", def, len(res.Documents))
	}
	obj := res.Documents[0].Object()
	if hasStatus(obj) {
		// As the apiserver's strategies: a create ignores status.
		status := map[string]any{"subresources": map[string]any{"status": map[string]any{}}}
		if v1 {
			maps.Copy(obj["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any), status)
		} else {
			maps.Copy(obj["spec"].(map[string]any), status)
		}
	}
	return oracle.Decode(obj)
}

// hasStatus reports whether the compiled CRD's schema has a status (a v1
// CRD's one version's, or a v1beta1 CRD's spec.validation).
func hasStatus(crd map[string]any) bool {
	spec, _ := crd["spec"].(map[string]any)
	s, _ := spec["validation"].(map[string]any)
	if versions, _ := spec["versions"].([]any); s == nil && len(versions) == 1 {
		v, _ := versions[0].(map[string]any)
		s, _ = v["schema"].(map[string]any)
	}
	root, _ := s["openAPIV3Schema"].(map[string]any)
	props, _ := root["properties"].(map[string]any)
	_, ok := props["status"]
	return ok
}

// clusterScoped are the built-in kinds that are not namespaced.
var clusterScoped = map[schema.GroupKind]bool{}

func init() {
	for _, gk := range []string{
		"Namespace", "Node", "PersistentVolume", "ComponentStatus",
		"ClusterRole.rbac.authorization.k8s.io", "ClusterRoleBinding.rbac.authorization.k8s.io",
		"StorageClass.storage.k8s.io", "CSIDriver.storage.k8s.io", "CSINode.storage.k8s.io", "VolumeAttachment.storage.k8s.io", "VolumeAttributesClass.storage.k8s.io",
		"PriorityClass.scheduling.k8s.io", "RuntimeClass.node.k8s.io", "IngressClass.networking.k8s.io", "IPAddress.networking.k8s.io", "ServiceCIDR.networking.k8s.io",
		"CustomResourceDefinition.apiextensions.k8s.io", "APIService.apiregistration.k8s.io",
		"ValidatingWebhookConfiguration.admissionregistration.k8s.io", "MutatingWebhookConfiguration.admissionregistration.k8s.io",
		"ValidatingAdmissionPolicy.admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"MutatingAdmissionPolicy.admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding.admissionregistration.k8s.io",
		"CertificateSigningRequest.certificates.k8s.io", "ClusterTrustBundle.certificates.k8s.io",
		"PodSecurityPolicy.policy", "PodSecurityPolicy.extensions",
		"FlowSchema.flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io",
		"TokenReview.authentication.k8s.io", "SelfSubjectReview.authentication.k8s.io",
		"SubjectAccessReview.authorization.k8s.io", "SelfSubjectAccessReview.authorization.k8s.io", "SelfSubjectRulesReview.authorization.k8s.io",
		"StorageVersion.internal.apiserver.k8s.io", "StorageVersionMigration.storagemigration.k8s.io",
		"DeviceClass.resource.k8s.io", "ResourceSlice.resource.k8s.io", "DeviceTaintRule.resource.k8s.io",
	} {
		clusterScoped[schema.ParseGroupKind(gk)] = true
	}
}

// served says which minors served gvk, among all embedded: the last one
// and whether any later one does not ("" when none did).
func (b *builtins) lastServed(gvk schema.GroupVersionKind) (last, first string) {
	for _, v := range schemas.Versions() {
		idx, err := b.index(v)
		if err != nil {
			continue
		}
		if _, ok := idx.def[gvk]; ok {
			if first == "" {
				first = v
			}
			last = v
		}
	}
	return last, first
}

// isBuiltinGroup reports whether group is one of Kubernetes' own in some
// embedded minor: the core group, a group without a dot, or one an
// embedded bundle defines kinds of.
func (b *builtins) isBuiltinGroup(idx *builtinIndex, group string) bool {
	if !strings.Contains(group, ".") {
		return true
	}
	if _, ok := idx.kinds[group]; ok {
		return true
	}
	if !strings.HasSuffix(group, ".k8s.io") {
		return false
	}
	for _, v := range schemas.Versions() {
		if other, err := b.index(v); err == nil {
			if _, ok := other.kinds[group]; ok {
				return true
			}
		}
	}
	return false
}

// judgeBuiltin judges an object of Kubernetes' own group against the
// target minor's definition of its kind. It reports false when the group
// is no built-in one (a custom resource whose CRD is missing).
func (r *resource) judgeBuiltin(version string) (*oracle.CRD, bool) {
	apiVersion, _ := r.obj["apiVersion"].(string)
	kind, _ := r.obj["kind"].(string)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, false
	}
	idx, err := builtinCache.index(version)
	if err != nil {
		r.problem("/apiVersion", "apiVersion", err.Error())
		return nil, true
	}
	if !builtinCache.isBuiltinGroup(idx, gv.Group) {
		return nil, false
	}
	gvk := gv.WithKind(kind)
	if _, ok := idx.def[gvk]; ok {
		crd, err := builtinCache.crd(idx, gvk)
		if err != nil {
			r.problem("/kind", "kind", fmt.Sprintf("%s %s: %v", apiVersion, kind, err))
			return nil, true
		}
		r.builtin = r.finding("/kind", "", apiVersion+" "+kind)
		r.kind = builtinKind{minor: idx.minor, def: idx.def[gvk]}
		if removed := builtinCache.removedAfter(idx.minor, gvk); removed != "" {
			use := ""
			if elsewhere := slices.DeleteFunc(idx.apiVersionsOf(kind), func(s string) bool { return s == apiVersion }); len(elsewhere) > 0 {
				use = fmt.Sprintf("; use %s", strings.Join(elsewhere, " or "))
			}
			r.warn("/apiVersion", "apiVersion", fmt.Sprintf("%s %s is served by %s but removed in Kubernetes %s%s", apiVersion, kind, minorName(idx), removed, use))
		}
		return crd, true
	}
	target := minorName(idx)
	if versions := idx.versions[gvk.GroupKind()]; len(versions) > 0 || builtinCache.servedAnywhere(gvk) {
		last, first := builtinCache.lastServed(gvk)
		use := ""
		if len(versions) > 0 {
			use = fmt.Sprintf("; use %s", strings.Join(groupVersions(gv.Group, versions), " or "))
		} else if elsewhere := idx.apiVersionsOf(kind); len(elsewhere) > 0 {
			use = fmt.Sprintf("; use %s", strings.Join(elsewhere, " or "))
		}
		switch {
		case last != "" && schemas.CompareMinors(last, idx.minor) < 0:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("%s %s is not served by %s: it was removed in Kubernetes %s (last served by %s)%s", apiVersion, kind, target, nextMinor(last), last, use))
		case first != "":
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("%s %s is not served by %s: it is served from Kubernetes %s%s", apiVersion, kind, target, first, use))
		default:
			r.problem("/apiVersion", "apiVersion", fmt.Sprintf("no matches for kind %q in version %q: %s serves %s %s%s", kind, apiVersion, target, kind, strings.Join(groupVersions(gv.Group, versions), ", "), use))
		}
		return nil, true
	}
	candidates := idx.kinds[gv.Group]
	msg := fmt.Sprintf("no matches for kind %q in version %q: %s defines no such kind in group %q, and no CRD given does", kind, apiVersion, target, gv.Group)
	if gv.Group == "" {
		msg = fmt.Sprintf("no matches for kind %q in version %q: %s defines no such kind in the core group, and no CRD given does", kind, apiVersion, target)
	}
	r.problem("/kind", "kind", msg+didYouMeanKind(kind, candidates))
	return nil, true
}

// apiVersionsOf lists, sorted, the apiVersions that serve kind in any
// group of the minor (apps/v1 for a Deployment of extensions/v1beta1):
// only the stable ones (v1, v2) when there are any.
func (idx *builtinIndex) apiVersionsOf(kind string) []string {
	var all, stable []string
	for gk, versions := range idx.versions {
		if gk.Kind != kind {
			continue
		}
		for _, gv := range groupVersions(gk.Group, versions) {
			all = append(all, gv)
			if v := gv[strings.LastIndex(gv, "/")+1:]; !strings.Contains(v, "alpha") && !strings.Contains(v, "beta") {
				stable = append(stable, gv)
			}
		}
	}
	if len(stable) > 0 {
		all = stable
	}
	slices.Sort(all)
	return all
}

// minorName names the index's minor in messages.
func minorName(idx *builtinIndex) string { return "Kubernetes " + idx.minor }

// removedAfter returns the first embedded minor after minor that does not
// serve gvk, or "": reading only the minors up to it (none for the newest).
func (b *builtins) removedAfter(minor string, gvk schema.GroupVersionKind) string {
	for _, v := range schemas.Versions() {
		if schemas.CompareMinors(v, minor) <= 0 {
			continue
		}
		idx, err := b.index(v)
		if err != nil {
			return ""
		}
		if _, ok := idx.def[gvk]; !ok {
			return v
		}
	}
	return ""
}

// servedAnywhere reports whether some embedded minor serves gvk.
func (b *builtins) servedAnywhere(gvk schema.GroupVersionKind) bool {
	last, _ := b.lastServed(gvk)
	return last != ""
}

// groupVersions spells each version of group as an apiVersion.
func groupVersions(group string, versions []string) []string {
	out := make([]string, len(versions))
	for i, v := range versions {
		out[i] = schema.GroupVersion{Group: group, Version: v}.String()
	}
	return out
}

// nextMinor returns the minor after "1.N".
func nextMinor(minor string) string {
	vs := schemas.Versions()
	if i := slices.Index(vs, minor); i >= 0 && i+1 < len(vs) {
		return vs[i+1]
	}
	var major, n int
	if _, err := fmt.Sscanf(minor, "%d.%d", &major, &n); err == nil {
		return fmt.Sprintf("%d.%d", major, n+1)
	}
	return "after " + minor
}

// schemaOnly is a built-in object judged by its schema alone: where its
// kind stands (its message the apiVersion and kind) and why the
// apiserver's hand-written validation did not judge it.
type schemaOnly struct {
	at  project.Problem
	why string
}

// schemaOnlyNotes adds to each file's warnings, once per built-in kind
// judged in it by its schema alone, that only the kind's schema was
// judged, and why: never a silent pass for what is not checked.
func schemaOnlyNotes(results []project.ValidationResult, builtins map[int][]schemaOnly, minor string) {
	for _, file := range slices.Sorted(maps.Keys(builtins)) {
		seen := map[schemaOnly]bool{}
		for _, b := range builtins[file] {
			key := schemaOnly{project.Problem{Message: b.at.Message}, b.why}
			if seen[key] {
				continue
			}
			seen[key] = true
			p := b.at
			p.Message = fmt.Sprintf("%s: judged by its OpenAPI schema for Kubernetes %s only (fields, types, required, formats, int-or-string, quantities, list keys, metadata); the apiserver's hand-written validation of the kind (allowed values, names per kind, cross-field rules) was not run: %s", b.at.Message, minor, b.why)
			results[file].Warnings = append(results[file].Warnings, p)
		}
	}
}

// handWrittenVerdict judges the built-in object with the apiserver's
// hand-written validation (opts.HandWritten) when the binary links the
// target minor and judges the kind, and reports whether it did: then its
// findings are the object's. Otherwise r.schemaOnlyWhy says why not, and
// the schema judges. A binary that fails is a problem, never a pass.
func (r *resource) handWrittenVerdict(opts Options) bool {
	h := opts.HandWritten
	if h == nil {
		r.schemaOnlyWhy = fmt.Sprintf("%s, which runs it, is not installed (%s)", BuiltinsBinary, BuiltinsInstall)
		return false
	}
	if h.off {
		r.schemaOnlyWhy = fmt.Sprintf("%s=%s turned %s off", BuiltinsEnv, BuiltinsNone, BuiltinsBinary)
		return false
	}
	ok, err := h.Serves(cmp.Or(opts.builtinVersion(), schemas.Latest()))
	if err != nil {
		r.problem("", "", fmt.Sprintf("not judged: %v", err))
		return true
	}
	if !ok {
		version, _, _ := h.Version()
		r.schemaOnlyWhy = fmt.Sprintf("%s (%s) links Kubernetes %s's and judges that minor only", BuiltinsBinary, h.Path(), version)
		return false
	}
	if !r.judgeHandWritten(h, opts.Pruning) {
		r.schemaOnlyWhy = fmt.Sprintf("%s does not judge this kind", BuiltinsBinary)
		return false
	}
	return true
}

// didYouMeanKind suggests the kind of candidates closest to kind, matched
// case-insensitively first ("configmap" is ConfigMap).
func didYouMeanKind(kind string, candidates []string) string {
	for _, c := range candidates {
		if strings.EqualFold(c, kind) {
			return fmt.Sprintf(" (did you mean %q? kinds are case-sensitive)", c)
		}
	}
	return suggest.DidYouMean(kind, candidates)
}

// emptyBytes reports whether err refuses "" as a base64 string (format
// byte): the schema's format check does, the apiserver's decoding of a
// built-in object's []byte field does not (an empty Secret value).
func emptyBytes(err *field.Error) bool {
	return err.Type == field.ErrorTypeTypeInvalid && err.BadValue == "" && strings.HasSuffix(err.Detail, "must be of type byte: \"\"")
}
