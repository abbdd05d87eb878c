package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// oldManager is the field manager the old CRDs and objects were created
// with: Helm's, for the CRDs of Dask's chart.
const oldManager = "helm"

// TestInPlaceSwitch is the switch from Dask's operator on a cluster where
// an older operator left its CRDs: this repository's templates compiled
// with --k8s-version 1.21 (Dask's chart ships 1.21 schemas) and without
// the project configuration (so without today's patches), created by
// another field manager, as Helm creates a chart's crds/. Objects shaped
// like Dask's examples are stored under them, among them a DaskCluster
// whose worker pod has a host alias without ip (valid under 1.21, where
// hostAliases is an atomic list with ip optional) and the default worker
// group Dask's operator made for it. Then our operator starts (its
// command, k8s-crd-resolver-reconcile): it takes the CRDs over
// (forced server-side apply; the result must be exactly our CRDs, nothing
// of the old schema left behind), every stored object reconciles, and
// every one accepts a label-only update and a spec update. The worker
// Deployments Dask's operator made for a group of 2 (random names, no spec
// hash) are adopted: the group keeps 2 workers, not 4, and scaling it to 3
// adds one of ours. kopf's finalizer, which Dask's operator put on its
// DaskCluster and DaskAutoscaler, is removed once they are deleted and
// the grace (--kopf-finalizer-grace) has passed, and both go.
//
// It runs its own etcd and kube-apiserver: CRDs are cluster-wide, and the
// shared control plane's are ours already.
func TestInPlaceSwitch(t *testing.T) {
	restConfig(t) // skips under -short
	bin := filepath.Join(buildBinaries(t), "k8s-crd-resolver")
	env, err := testenv.New(os.Getenv(testenv.AssetsEnv))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting a second control plane: %v", err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the second control plane: %v", err)
		}
	})
	c := directClient(t, cfg)
	ctx := t.Context()

	// The CRDs as the older operator left them.
	for _, kind := range []string{"daskautoscaler", "daskcluster", "daskjob", "daskworkergroup"} {
		crd := oldCRD(t, bin, kind)
		if err := c.Create(ctx, crd, client.FieldOwner(oldManager)); err != nil {
			t.Fatalf("creating the 1.21 CRD %s: %v", crd.GetName(), err)
		}
		waitEstablished(t, c, crd.GetName())
	}

	// Objects as Dask's users and Dask's operator stored them.
	ns := "dask-switch"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	simpleObj := daskObject(t, "DaskCluster", ns, "simple", daskClusterSpec(nil))
	simpleObj.SetFinalizers([]string{kopfMarker})
	simple := storeOld(t, c, simpleObj)
	noIP := []any{map[string]any{"hostnames": []any{"db.internal"}}}
	aliased := storeOld(t, c, daskObject(t, "DaskCluster", ns, "aliased", daskClusterSpec(noIP)))
	for _, dc := range []*unstructured.Unstructured{simple, aliased} {
		// Dask's operator wrote the phase through the status subresource.
		if err := c.Status().Patch(ctx, dc, client.RawPatch("application/merge-patch+json", []byte(`{"status":{"phase":"Running"}}`))); err != nil {
			t.Fatalf("writing the old status of %s: %v", dc.GetName(), err)
		}
	}
	// The default group Dask's operator made for aliased, owned by it.
	aliasedDefault := daskObject(t, "DaskWorkerGroup", ns, "aliased-default", map[string]any{
		"cluster": "aliased",
		"worker":  daskClusterSpec(noIP)["worker"],
	})
	aliasedDefault.SetLabels(map[string]string{"dask.org/cluster-name": "aliased", "dask.org/component": "workergroup"})
	aliasedDefault.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: daskv1.GroupVersion.String(), Kind: "DaskCluster", Name: "aliased", UID: aliased.GetUID(),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
	}})
	aliasedDefault = storeOld(t, c, aliasedDefault)
	additional := storeOld(t, c, daskObject(t, "DaskWorkerGroup", ns, "simple-additional", map[string]any{
		"cluster": "simple",
		"worker":  daskClusterSpec(nil)["worker"],
	}))
	job := storeOld(t, c, daskObject(t, "DaskJob", ns, "simple-job", map[string]any{
		"job": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
			"name": "job", "image": daskImage, "imagePullPolicy": "IfNotPresent",
			"args": []any{"python", "-c", "print('hello world')"},
		}}}},
		"cluster": map[string]any{"spec": daskClusterSpec(nil)},
	}))
	autoscalerObj := daskObject(t, "DaskAutoscaler", ns, "simple", map[string]any{
		"cluster": "simple", "minimum": int64(1), "maximum": int64(3),
	})
	autoscalerObj.SetFinalizers([]string{kopfMarker})
	autoscaler := storeOld(t, c, autoscalerObj)
	// The workers Dask's operator made for simple-additional (2 replicas).
	daskWorkers := []string{"simple-additional-worker-3fa9c01b2e", "simple-additional-worker-b41d07e9aa"}
	for _, name := range daskWorkers {
		if err := c.Create(ctx, daskWorkerDeployment(ns, name, additional)); err != nil {
			t.Fatalf("storing Dask's worker %s: %v", name, err)
		}
	}
	before := groupWorkers(t, c, ns, "simple-additional")

	// Our operator starts: its command, k8s-crd-resolver-reconcile, as the
	// operator's service account (deploy/'s RBAC), installs the CRDs, then
	// reconciles; it is ready only once both are done.
	if err := applyRBAC(ctx, c); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := saveKubeconfig(operatorConfig(cfg), kubeconfig); err != nil {
		t.Fatal(err)
	}
	proc := startCompanion(t, filepath.Dir(bin), kubeconfig, "--kopf-finalizer-grace", kopfGrace.String())
	t.Cleanup(func() {
		if err := proc.stop(); err != nil {
			t.Error(err)
		}
	})

	// The CRDs are exactly ours: nothing of the 1.21 schema is left, though
	// another manager owned all of it.
	want, err := reconciler.EmbeddedCRDs().CRDs()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		testenv.Eventually(t, timeout, "CRD "+w.GetName()+" taken over", func(ctx context.Context) (bool, string, error) {
			var got apiextensionsv1.CustomResourceDefinition
			if err := c.Get(ctx, client.ObjectKey{Name: w.GetName()}, &got); err != nil {
				return false, "", err
			}
			if ok, msg, err := crdSpecDiff(t, w, &got); !ok {
				return ok, msg, err
			}
			// Owned by the operator's server-side apply from now on.
			for _, m := range got.ManagedFields {
				if m.Manager == reconciler.FieldOwner && m.Operation == metav1.ManagedFieldsOperationApply {
					return true, "", nil
				}
			}
			return false, fmt.Sprintf("no %s Apply entry in managedFields", reconciler.FieldOwner), nil
		})
	}

	// Every stored object reconciles.
	key := inNamespace(ns)
	waitObserved(t, c, key("simple"), &daskv1.DaskCluster{})
	waitObserved(t, c, key("aliased"), &daskv1.DaskCluster{})
	waitObserved(t, c, key("simple-additional"), &daskv1.DaskWorkerGroup{})
	waitObserved(t, c, key("aliased-default"), &daskv1.DaskWorkerGroup{})
	waitObserved(t, c, key("simple-job"), &daskv1.DaskJob{})
	waitObserved(t, c, key("simple"), &daskv1.DaskAutoscaler{})
	waitWorkers(t, c, ns, "simple-default", 2)
	// Reconciled (above): Dask's two workers are the group's two.
	after := groupWorkers(t, c, ns, "simple-additional")
	t.Logf("simple-additional (2 replicas): workers before the switch %v, after %v", before, after)
	if !slices.Equal(after, daskWorkers) {
		t.Errorf("after the switch simple-additional has workers %v, want Dask's %v only", after, daskWorkers)
	}
	for _, name := range []string{"simple-scheduler", "aliased-scheduler", "simple-job-scheduler"} {
		var d appsv1.Deployment
		if err := c.Get(ctx, key(name), &d); err != nil {
			t.Errorf("scheduler Deployment %s: %v", name, err)
		}
	}
	var runner corev1.Pod
	testenv.Eventually(t, timeout, "runner pod", func(ctx context.Context) (bool, string, error) {
		err := c.Get(ctx, key("simple-job-runner"), &runner)
		return err == nil, fmt.Sprint(err), client.IgnoreNotFound(err)
	})
	for _, o := range []struct {
		obj  client.Object
		name string
	}{{&daskv1.DaskWorkerGroup{}, "simple-additional"}, {&daskv1.DaskAutoscaler{}, "simple"}} {
		if err := c.Get(ctx, key(o.name), o.obj); err != nil {
			t.Fatal(err)
		}
		assertOwner(t, o.obj, "DaskCluster", simple.GetUID())
	}
	// aliased's workers cannot exist: no Pod takes a host alias without a
	// valid IP, under Dask's operator either. It says so, and goes on.
	waitEvent(t, c, ns, "aliased-default", "FailedCreateWorker")

	// Every stored object accepts a label-only update, then a spec update.
	for _, u := range []*unstructured.Unstructured{simple, aliased, aliasedDefault, additional, job, autoscaler} {
		what := u.GetKind() + " " + u.GetName()
		if err := c.Patch(ctx, u, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"switched":"yes"}}}`))); err != nil {
			t.Errorf("%s: label-only update after the switch: %v", what, err)
		}
		patch := `{"spec":{"worker":{"replicas":3}}}`
		switch u.GetKind() {
		case "DaskJob":
			patch = `{"spec":{"cluster":{"spec":{"worker":{"replicas":3}}}}}`
		case "DaskAutoscaler":
			patch = `{"spec":{"maximum":4}}`
		}
		if err := c.Patch(ctx, u, client.RawPatch("application/merge-patch+json", []byte(patch))); err != nil {
			t.Errorf("%s: spec update %s after the switch: %v", what, patch, err)
		}
	}
	waitObserved(t, c, key("simple"), &daskv1.DaskCluster{})
	waitWorkers(t, c, ns, "simple-default", 3)
	waitWorkers(t, c, ns, "simple-additional", 3)
	scaled := groupWorkers(t, c, ns, "simple-additional")
	t.Logf("simple-additional scaled to 3: %v", scaled)
	if want := append([]string{reconciler.WorkerName("simple-additional", 0)}, daskWorkers...); !slices.Equal(scaled, want) {
		t.Errorf("simple-additional scaled to 3 has %v, want %v", scaled, want)
	}

	// New objects still need ip; the stored one is fixed by setting it, and
	// then its workers come.
	bad := daskObject(t, "DaskCluster", ns, "new-without-ip", daskClusterSpec(noIP))
	if err := c.Create(ctx, bad); err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "hostAliases[0].ip") {
		t.Errorf("creating a DaskCluster with a host alias without ip: %v, want Invalid at hostAliases[0].ip", err)
	}
	fix := `{"spec":{"worker":{"spec":{"hostAliases":[{"ip":"10.0.0.1","hostnames":["db.internal"]}]}}}}`
	if err := c.Patch(ctx, aliased, client.RawPatch("application/merge-patch+json", []byte(fix))); err != nil {
		t.Fatalf("setting the host alias's ip: %v", err)
	}
	waitWorkers(t, c, ns, "aliased-default", 3)

	// Deleted, the resources with kopf's finalizer go once the grace has
	// passed since their deletion, each with an event.
	for _, u := range []*unstructured.Unstructured{autoscaler, simple} {
		if err := c.Delete(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			t.Fatalf("%s %s went at once, though kopf's finalizer was on it: %v", u.GetKind(), u.GetName(), err)
		}
		deleted := u.GetDeletionTimestamp()
		testenv.Eventually(t, timeout, u.GetKind()+" deleted", func(ctx context.Context) (bool, string, error) {
			err := c.Get(ctx, client.ObjectKeyFromObject(u), u)
			return apierrors.IsNotFound(err), fmt.Sprintf("finalizers %v (%v)", u.GetFinalizers(), err), client.IgnoreNotFound(err)
		})
		var e *eventsv1.Event
		testenv.Eventually(t, timeout, "RemovedKopfFinalizer about "+u.GetKind(), func(ctx context.Context) (bool, string, error) {
			var list eventsv1.EventList
			if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
				return false, "", err
			}
			for i, ev := range list.Items {
				if ev.Regarding.Kind == u.GetKind() && ev.Regarding.Name == u.GetName() && ev.Reason == "RemovedKopfFinalizer" {
					e = &list.Items[i]
				}
			}
			return e != nil, "", nil
		})
		if e.EventTime.Sub(deleted.Time) < kopfGrace {
			t.Errorf("%s: kopf's finalizer removed at %s, inside the grace (%s) after the deletion at %s", u.GetKind(), e.EventTime, kopfGrace, deleted)
		}
	}
}

// kopfMarker is the finalizer kopf, Dask's operator's framework, puts on
// resources with timers; kopfGrace how long the operator under test
// leaves it on a deleted one.
const (
	kopfMarker = "kopf.zalando.org/KopfFinalizerMarker"
	kopfGrace  = 2 * time.Second
)

// daskWorkerDeployment is a worker Deployment as Dask's operator makes
// them: its own name, labels, a controller reference to its group (kopf's
// adopt), DASK_WORKER_NAME set to its name, and no spec hash.
func daskWorkerDeployment(ns, name string, group *unstructured.Unstructured) *appsv1.Deployment {
	labels := map[string]string{
		reconciler.LabelCluster: "simple", reconciler.LabelWorkerGroup: group.GetName(), reconciler.LabelComponent: reconciler.ComponentWorker,
		"sidecar.istio.io/inject": "false",
	}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: ns, Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: daskv1.GroupVersion.String(), Kind: "DaskWorkerGroup", Name: group.GetName(), UID: group.GetUID(),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "worker", Image: daskImage, Args: []string{"dask-worker", "--name", "$(DASK_WORKER_NAME)"},
					Env: []corev1.EnvVar{
						{Name: reconciler.EnvWorkerName, Value: name},
						{Name: reconciler.EnvSchedulerAddress, Value: "tcp://simple-scheduler." + ns + ".svc.cluster.local:8786"},
					},
				}}},
			},
		},
	}
}

// groupWorkers lists the names of group's live worker Deployments, sorted.
func groupWorkers(t *testing.T, c client.Client, ns, group string) []string {
	t.Helper()
	var list appsv1.DeploymentList
	if err := c.List(t.Context(), &list, client.InNamespace(ns), client.MatchingLabels{reconciler.LabelWorkerGroup: group}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range list.Items {
		if d.DeletionTimestamp.IsZero() {
			out = append(out, d.Name)
		}
	}
	slices.Sort(out)
	return out
}

// daskImage is the image of Dask's examples.
const daskImage = "ghcr.io/dask/dask:latest"

// oldCRD compiles templates/<kind>.yaml as the older operator did. The
// autoscaler's x-kubernetes-validations rule is one 1.21 does not have
// (compiling it for 1.21 is refused): a 1.21 apiserver drops it, and
// Dask's chart never had it, so the older CRD is the template without it.
func oldCRD(t *testing.T, bin, kind string) *unstructured.Unstructured {
	t.Helper()
	template := "templates/" + kind + ".yaml"
	if kind == "daskautoscaler" {
		src, err := os.ReadFile(filepath.Join("../..", template))
		if err != nil {
			t.Fatal(err)
		}
		rule := "              x-kubernetes-validations:\n                - rule: self.minimum <= self.maximum\n                  message: minimum must not exceed maximum\n"
		if !bytes.Contains(src, []byte(rule)) {
			t.Fatalf("%s: no longer holds the rule %q", template, rule)
		}
		template = filepath.Join(t.TempDir(), kind+".yaml")
		if err := os.WriteFile(template, bytes.Replace(src, []byte(rule), nil, 1), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return compileTemplate(t, bin, "resolve", template, "--k8s-version", "1.21", "-r", "--no-config", "--no-validate")
}

// daskClusterSpec is a DaskCluster spec shaped like Dask's simple cluster
// example; hostAliases, when set, goes into the worker's pod.
func daskClusterSpec(hostAliases []any) map[string]any {
	worker := map[string]any{"containers": []any{map[string]any{
		"name": "worker", "image": daskImage, "imagePullPolicy": "IfNotPresent",
		"args":  []any{"dask-worker", "--name", "$(DASK_WORKER_NAME)", "--dashboard", "--dashboard-address", "8788"},
		"env":   []any{map[string]any{"name": "WORKER_ENV", "value": "hello-world"}},
		"ports": []any{map[string]any{"name": "http-dashboard", "containerPort": int64(8788), "protocol": "TCP"}},
		// A bare integer in a quantity, as people write them.
		"resources": map[string]any{"limits": map[string]any{"cpu": int64(1), "memory": "2G"}},
	}}}
	if hostAliases != nil {
		worker["hostAliases"] = hostAliases
	}
	return map[string]any{
		"scheduler": map[string]any{
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "scheduler", "image": daskImage, "imagePullPolicy": "IfNotPresent",
				"args": []any{"dask-scheduler"},
				"ports": []any{
					map[string]any{"name": "tcp-comm", "containerPort": int64(8786), "protocol": "TCP"},
					map[string]any{"name": "http-dashboard", "containerPort": int64(8787), "protocol": "TCP"},
				},
				"readinessProbe": map[string]any{
					"httpGet":             map[string]any{"port": "http-dashboard", "path": "/health"},
					"initialDelaySeconds": int64(0), "periodSeconds": int64(1), "timeoutSeconds": int64(300),
				},
			}}},
			"service": map[string]any{
				"type":     "ClusterIP",
				"selector": map[string]any{"dask.org/component": "scheduler"},
				"ports": []any{
					map[string]any{"name": "tcp-comm", "protocol": "TCP", "port": int64(8786), "targetPort": "tcp-comm"},
					map[string]any{"name": "http-dashboard", "protocol": "TCP", "port": int64(8787), "targetPort": "http-dashboard"},
				},
			},
		},
		"worker": map[string]any{"replicas": int64(2), "spec": worker},
	}
}

// daskObject is a kubernetes.dask.org/v1 object with the labels and
// annotations a Dask user's and kopf's would have.
func daskObject(t *testing.T, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(daskv1.GroupVersion.String())
	u.SetKind(kind)
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetLabels(map[string]string{"test-label": "label-value"})
	applied, err := json.Marshal(u.Object)
	if err != nil {
		t.Fatal(err)
	}
	u.SetAnnotations(map[string]string{
		"test-annotation": "annotation-value",
		"kubectl.kubernetes.io/last-applied-configuration": string(applied),
		"kopf.zalando.org/last-handled-configuration":      `{"spec":{}}`,
	})
	return u
}

// storeOld creates u under the old CRD, as kubectl's client-side apply.
func storeOld(t *testing.T, c client.Client, u *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	if err := c.Create(t.Context(), u, client.FieldOwner("kubectl-client-side-apply")); err != nil {
		t.Fatalf("storing %s %s under the 1.21 CRD: %v", u.GetKind(), u.GetName(), err)
	}
	return u
}

// waitObserved waits until the operator has reconciled the current
// generation of the object at key (status.observedGeneration).
func waitObserved(t *testing.T, c client.Client, key client.ObjectKey, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, timeout, fmt.Sprintf("%T %s reconciled", obj, key.Name), func(ctx context.Context) (bool, string, error) {
		if err := c.Get(ctx, key, obj); err != nil {
			return false, "", err
		}
		var got int64
		switch o := obj.(type) {
		case *daskv1.DaskCluster:
			got = o.Status.ObservedGeneration
		case *daskv1.DaskWorkerGroup:
			got = o.Status.ObservedGeneration
		case *daskv1.DaskJob:
			got = o.Status.ObservedGeneration
		case *daskv1.DaskAutoscaler:
			got = o.Status.ObservedGeneration
		default:
			return false, "", fmt.Errorf("%T has no observedGeneration", obj)
		}
		return got == obj.GetGeneration(), fmt.Sprintf("observedGeneration %d, generation %d", got, obj.GetGeneration()), nil
	})
}

// crdSpecDiff reports whether the served CRD got has want's names and
// schemas, and where not.
func crdSpecDiff(t *testing.T, want *unstructured.Unstructured, got *apiextensionsv1.CustomResourceDefinition) (bool, string, error) {
	t.Helper()
	var w apiextensionsv1.CustomResourceDefinition
	b, err := json.Marshal(want.Object)
	if err != nil {
		return false, "", err
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return false, "", err
	}
	if len(w.Spec.Versions) != len(got.Spec.Versions) {
		return false, fmt.Sprintf("%d versions, want %d", len(got.Spec.Versions), len(w.Spec.Versions)), nil
	}
	if !sameJSON(t, got.Spec.Names.ShortNames, w.Spec.Names.ShortNames) {
		return false, fmt.Sprintf("shortNames %v, want %v", got.Spec.Names.ShortNames, w.Spec.Names.ShortNames), nil
	}
	for i := range w.Spec.Versions {
		if !sameJSON(t, got.Spec.Versions[i].Schema, w.Spec.Versions[i].Schema) {
			return false, fmt.Sprintf("version %s: schema differs from the embedded CRD's", w.Spec.Versions[i].Name), nil
		}
	}
	return true, "", nil
}
