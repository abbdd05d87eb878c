package reconciler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

func TestPickRetirees(t *testing.T) {
	ws := []workerInfo{
		{Name: "w-0", Index: 0, Ready: true},
		{Name: "w-1", Index: 1, Ready: false},
		{Name: "w-2", Index: 2, Ready: true},
		{Name: "w-3", Index: 3, Ready: false},
	}
	for _, tc := range []struct {
		n    int
		want []string
	}{
		{0, []string{}},
		{1, []string{"w-3"}},
		{2, []string{"w-3", "w-1"}},
		{3, []string{"w-3", "w-1", "w-2"}},
		{9, []string{"w-3", "w-1", "w-2", "w-0"}},
		{-1, []string{}},
	} {
		if got := pickRetirees(ws, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("pickRetirees(%d) = %v, want %v", tc.n, got, tc.want)
		}
	}
	if ws[0].Name != "w-0" {
		t.Error("pickRetirees reordered its input")
	}
	// Workers Dask's operator made go after the not-ready ones and before
	// this operator's, in name order.
	mixed := append(slices.Clone(ws),
		workerInfo{Name: "w-worker-ffe0", Index: -1, Ready: true, Legacy: true},
		workerInfo{Name: "w-worker-0a1b", Index: -1, Ready: true, Legacy: true},
	)
	if got, want := pickRetirees(mixed, 5), []string{"w-3", "w-1", "w-worker-0a1b", "w-worker-ffe0", "w-2"}; !slices.Equal(got, want) {
		t.Errorf("pickRetirees with Dask's workers = %v, want %v", got, want)
	}
}

func TestFreeIndices(t *testing.T) {
	got := freeIndices(map[int]bool{0: true, 2: true}, 3)
	if want := []int{1, 3, 4}; !slices.Equal(got, want) {
		t.Errorf("freeIndices = %v, want %v", got, want)
	}
	if got := freeIndices(nil, 0); len(got) != 0 {
		t.Errorf("freeIndices(0) = %v", got)
	}
}

func TestWorkerIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		idx  int
		ok   bool
	}{
		{"g-worker-0", 0, true},
		{"g-worker-12", 12, true},
		{"g-worker-012", 0, false},
		{"g-worker--1", 0, false},
		{"g-worker-x", 0, false},
		{"other-worker-1", 0, false},
		{"g-x-worker-1", 0, false},
	} {
		idx, ok := workerIndex("g", tc.name)
		if idx != tc.idx || ok != tc.ok {
			t.Errorf("workerIndex(%q) = %d, %v; want %d, %v", tc.name, idx, ok, tc.idx, tc.ok)
		}
	}
	if i, ok := workerIndex("g", WorkerName("g", 7)); !ok || i != 7 {
		t.Errorf("round trip of WorkerName failed: %d %v", i, ok)
	}
}

func TestClamp(t *testing.T) {
	for _, tc := range [][4]int32{{1, 2, 3, 2}, {10, 2, 3, 3}, {2, 2, 3, 2}, {5, 0, 10, 5}, {5, 4, 3, 3}} {
		if got := clamp(tc[0], tc[1], tc[2]); got != tc[3] {
			t.Errorf("clamp(%d, %d, %d) = %d, want %d", tc[0], tc[1], tc[2], got, tc[3])
		}
	}
}

func TestInjectEnvKeepsUserValues(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{
		{Name: "a", Env: []corev1.EnvVar{{Name: EnvWorkerName, Value: "mine"}, {Name: "X", Value: "1"}}},
		{Name: "b"},
	}}
	injectEnv(&spec, []corev1.EnvVar{{Name: EnvSchedulerAddress, Value: "tcp://s:8786"}, {Name: EnvWorkerName, Value: "w-0"}})
	a, b := spec.Containers[0].Env, spec.Containers[1].Env
	if len(a) != 3 || a[0].Value != "mine" || a[1].Name != "X" || a[2].Name != EnvSchedulerAddress {
		t.Errorf("container a env = %+v", a)
	}
	if len(b) != 2 || b[0].Name != EnvSchedulerAddress || b[1].Value != "w-0" {
		t.Errorf("container b env = %+v", b)
	}
}

func TestSchedulerPort(t *testing.T) {
	for _, tc := range []struct {
		ports []corev1.ServicePort
		want  int32
	}{
		{nil, 8786},
		{[]corev1.ServicePort{{Name: "http", Port: 80}}, 80},
		{[]corev1.ServicePort{{Name: "http", Port: 80}, {Name: "x", Port: 8786}}, 8786},
		{[]corev1.ServicePort{{Name: "http", Port: 80}, {Name: "tcp-comm", Port: 9000}, {Port: 8786}}, 9000},
	} {
		if got := schedulerPort(&corev1.ServiceSpec{Ports: tc.ports}); got != tc.want {
			t.Errorf("schedulerPort(%v) = %d, want %d", tc.ports, got, tc.want)
		}
	}
}

// TestBuildersDoNotAlias: editing a built child never reaches the parent.
func TestBuildersDoNotAlias(t *testing.T) {
	wg := &daskv1.DaskWorkerGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "g", Namespace: "ns"},
		Spec: daskv1.DaskWorkerGroupSpec{Cluster: "c", Worker: daskv1.WorkerSpec{
			Replicas: 1,
			Metadata: daskv1.Metadata{Labels: map[string]string{"team": "a"}},
			Spec:     corev1.PodSpec{Containers: []corev1.Container{{Name: "w"}}},
		}},
	}
	d := workerDeployment(wg, 0, "tcp://x:8786", nil)
	d.Spec.Template.Labels["team"] = "b"
	if len(wg.Spec.Worker.Spec.Containers[0].Env) != 0 || wg.Spec.Worker.Metadata.Labels["team"] != "a" {
		t.Errorf("workerDeployment changed its input: %+v", wg.Spec.Worker)
	}
	if got := d.Spec.Selector.MatchLabels[LabelWorker]; got != "g-worker-0" {
		t.Errorf("worker selector = %v", d.Spec.Selector.MatchLabels)
	}
}

func TestYAMLCRDsRejectsOtherKinds(t *testing.T) {
	_, err := YAMLCRDs{"x.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")}.CRDs()
	if err == nil {
		t.Fatal("a ConfigMap was accepted as a CRD")
	}
	crds, err := EmbeddedCRDs().CRDs()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range crds {
		got = append(got, c.GetName())
	}
	want := []string{"daskautoscalers.kubernetes.dask.org", "daskclusters.kubernetes.dask.org", "daskjobs.kubernetes.dask.org", "daskworkergroups.kubernetes.dask.org"}
	if !slices.Equal(got, want) {
		t.Errorf("embedded CRDs = %v, want %v", got, want)
	}
}
