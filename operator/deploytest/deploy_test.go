package deploytest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/reconciler"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/operator/internal/testenv"

	daskv1 "github.com/k8s-crd-resolver/k8s-crd-resolver/operator/api/v1"
)

// The chart is installed as release dask-helm in namespace dask-helm, beside
// the kustomize base (namespace dask-operator), so no names collide.
const (
	release        = "dask-helm"
	releaseNS      = "dask-helm"
	chartFullname  = "dask-helm-dask-operator"
	waitFor        = time.Minute
	userNamespace  = "analytics"
	exampleCluster = "example"
)

// TestDeploy applies the rendered chart and kustomize base to the
// apiserver, runs the operator as the chart's ServiceAccount with the chart
// Deployment's arguments, reconciles Dask objects end to end, and checks
// the chart's RBAC against what the operator really called.
func TestDeploy(t *testing.T) {
	admin := restConfig(t)
	scheme, err := reconciler.NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(admin, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	chart := renderChart(t, release, releaseNS, nil)
	kust := buildKustomize(t)

	// The namespaces first, as `helm install --create-namespace` and a
	// kustomize Namespace resource do: a dry run creates nothing, so the
	// namespaced objects of the dry run need them to exist.
	for _, ns := range []string{releaseNS, userNamespace} {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range kust.objects {
		if o.GetKind() == "Namespace" {
			apply(t, c, o, "kustomize", false)
		}
	}

	// Server-side dry run of both sets: the apiserver validates and admits
	// every object, and stores none.
	for name, set := range map[string]rendered{"chart": chart, "kustomize": kust} {
		for _, o := range set.all() {
			apply(t, c, o, name, true)
		}
	}
	for _, o := range []client.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: releaseNS, Name: chartFullname}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "dask-operator", Name: "dask-operator"}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: chartFullname}},
	} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
			t.Fatalf("after the dry run, %T %s: %v (want not found)", o, o.GetName(), err)
		}
	}

	// For real, each set with its own field manager; the CRDs, identical in
	// both, end up shared.
	for name, set := range map[string]rendered{"chart": chart, "kustomize": kust} {
		for _, o := range set.all() {
			apply(t, c, o, name, false)
		}
	}
	for name, set := range map[string]rendered{"chart": chart, "kustomize": kust} {
		for _, o := range set.all() {
			got := &unstructured.Unstructured{}
			got.SetGroupVersionKind(o.GroupVersionKind())
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), got); err != nil {
				t.Errorf("%s: %s %s not stored: %v", name, o.GetKind(), o.GetName(), err)
			}
		}
	}

	// The operator, as the chart's Deployment runs it: its arguments, its
	// ServiceAccount (impersonated), its probe and metrics ports.
	dep := chart.find("Deployment", chartFullname)
	if dep == nil {
		t.Fatalf("the chart renders no Deployment %s:\n%s", chartFullname, chart)
	}
	ctr := container(t, dep)
	sa := "system:serviceaccount:" + releaseNS + ":" + dep.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["serviceAccountName"].(string)
	op := startOperator(t, admin, sa, ctr)

	scenario(t, c)
	if err := op.stop(); err != nil {
		t.Error(err)
	}
	checkRBAC(t, sa, chart)
}

// apply server-side applies o as field manager, dry-run or for real.
func apply(t *testing.T, c client.Client, o *unstructured.Unstructured, manager string, dryRun bool) {
	t.Helper()
	opts := []client.ApplyOption{client.FieldOwner(manager)}
	if dryRun {
		opts = append(opts, client.DryRunAll)
	}
	if err := c.Apply(t.Context(), client.ApplyConfigurationFromUnstructured(o.DeepCopy()), opts...); err != nil {
		t.Fatalf("%s: server-side apply (dry run %v) of %s %s: %v", manager, dryRun, o.GetKind(), o.GetName(), err)
	}
}

// containerSpec is the part of the operator container the test uses.
type containerSpec struct {
	Args  []string `json:"args"`
	Ports []struct {
		Name          string `json:"name"`
		ContainerPort int    `json:"containerPort"`
	} `json:"ports"`
	LivenessProbe, ReadinessProbe struct {
		HTTPGet struct {
			Path string `json:"path"`
			Port string `json:"port"`
		} `json:"httpGet"`
	}
}

func container(t *testing.T, dep *unstructured.Unstructured) containerSpec {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "containers")
	if len(cs) != 1 {
		t.Fatalf("the Deployment has %d containers, want 1", len(cs))
	}
	b, err := json.Marshal(cs[0])
	if err != nil {
		t.Fatal(err)
	}
	var s containerSpec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// operator is a running k8s-crd-resolver-reconcile process.
type operator struct {
	cmd    *exec.Cmd
	exited chan error
	logs   *testenv.SyncBuffer
}

// startOperator builds the operator and runs it with the container's
// arguments as user sa. The bind addresses keep their ports' roles but move
// to free loopback ports (another process may hold :8080 here); the
// container's probes and metrics port are checked against them.
func startOperator(t *testing.T, admin *rest.Config, sa string, ctr containerSpec) *operator {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "k8s-crd-resolver-reconcile")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "./cmd/k8s-crd-resolver-reconcile")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the operator: %v\n%s", err, out)
	}
	ports := map[string]int{}
	for _, p := range ctr.Ports {
		ports[p.Name] = p.ContainerPort
	}
	free := map[string]int{}
	var args []string
	for _, a := range ctr.Args {
		flag, value, _ := strings.Cut(a, "=")
		role := map[string]string{"--metrics-bind-address": "metrics", "--health-probe-bind-address": "probes"}[flag]
		if role == "" {
			args = append(args, a)
			continue
		}
		if value != fmt.Sprintf(":%d", ports[role]) {
			t.Errorf("%s=%s, but the container's %s port is %d", flag, value, role, ports[role])
		}
		p, err := testenv.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		free[role] = p
		args = append(args, fmt.Sprintf("%s=127.0.0.1:%d", flag, p))
	}
	if free["metrics"] == 0 || free["probes"] == 0 {
		t.Fatalf("the container's args %v do not bind metrics and probes", ctr.Args)
	}
	for _, p := range []string{ctr.LivenessProbe.HTTPGet.Port, ctr.ReadinessProbe.HTTPGet.Port} {
		if p != "probes" {
			t.Errorf("a probe uses port %q, want the probes port", p)
		}
	}

	// Outside a cluster no scheduler Service resolves: the documented
	// override points the operator at a port nothing listens on (no Dask
	// runs here), and scale-down falls back after a short retire timeout
	// instead of the default minute.
	args = append(args, "--scheduler-url=http://127.0.0.1:1", "--retire-timeout=2s")

	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	saveKubeconfig(t, admin, sa, kubeconfig)
	o := &operator{exited: make(chan error, 1), logs: &testenv.SyncBuffer{}}
	o.cmd = exec.Command(bin, append(args, "--kubeconfig", kubeconfig)...)
	o.cmd.Stdout, o.cmd.Stderr = o.logs, o.logs
	if err := o.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { o.exited <- o.cmd.Wait() }()
	t.Cleanup(func() {
		if o.cmd.ProcessState == nil {
			_ = o.cmd.Process.Kill()
			<-o.exited
		}
		if t.Failed() {
			t.Logf("operator logs:\n%s", o.logs.String())
		}
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", free["probes"])
	testenv.Eventually(t, waitFor, "the operator's readiness probe "+ctr.ReadinessProbe.HTTPGet.Path, func(ctx context.Context) (bool, string, error) {
		select {
		case err := <-o.exited:
			return false, "", fmt.Errorf("the operator exited: %w\n%s", err, o.logs.String())
		default:
		}
		code, err := get(ctx, base+ctr.ReadinessProbe.HTTPGet.Path)
		return code == http.StatusOK, fmt.Sprint(code, err), nil
	})
	for _, u := range []string{base + ctr.LivenessProbe.HTTPGet.Path, fmt.Sprintf("http://127.0.0.1:%d/metrics", free["metrics"])} {
		if code, err := get(t.Context(), u); code != http.StatusOK {
			t.Errorf("GET %s: %d %v", u, code, err)
		}
	}
	return o
}

func get(ctx context.Context, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// stop sends SIGTERM (what the kubelet sends) and waits for a clean exit.
func (o *operator) stop() error {
	if err := o.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-o.exited:
		if err != nil {
			return fmt.Errorf("the operator did not stop cleanly on SIGTERM: %w\n%s", err, o.logs.String())
		}
		return nil
	case <-time.After(waitFor):
		return fmt.Errorf("the operator still runs a minute after SIGTERM\n%s", o.logs.String())
	}
}

// saveKubeconfig writes a kubeconfig with admin's server and credentials
// acting as user (a ServiceAccount) with its groups.
func saveKubeconfig(t *testing.T, admin *rest.Config, user, path string) {
	t.Helper()
	ns := strings.Split(user, ":")[2]
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: admin.Host, CertificateAuthorityData: admin.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{
		ClientCertificateData: admin.CertData, ClientKeyData: admin.KeyData, Token: admin.BearerToken,
		Impersonate:       user,
		ImpersonateGroups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
	}
	kc.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "sa"}
	kc.CurrentContext = "envtest"
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
}

// scenario drives every code path of the operator that makes a request:
// a DaskCluster (create children, update them, scale down), a
// DaskAutoscaler, and a DaskJob from creation to its cluster's deletion.
func scenario(t *testing.T, c client.Client) {
	ctx := t.Context()
	key := func(name string) client.ObjectKey { return client.ObjectKey{Namespace: userNamespace, Name: name} }
	createExample(t, c, "daskcluster.yaml")

	waitDeployments(t, c, exampleCluster, 3) // scheduler and two workers
	testenv.Eventually(t, waitFor, "scheduler Service and default DaskWorkerGroup", func(ctx context.Context) (bool, string, error) {
		errS := c.Get(ctx, key(exampleCluster+"-scheduler"), &corev1.Service{})
		errW := c.Get(ctx, key(exampleCluster+"-default"), &daskv1.DaskWorkerGroup{})
		return errS == nil && errW == nil, fmt.Sprint(errS, errW), nil
	})
	waitCluster(t, c, key(exampleCluster), func(dc *daskv1.DaskCluster) bool { return dc.Status.Phase == daskv1.PhaseRunning })

	// New images, an extra port, one worker fewer: updates and a delete.
	patch := []byte(`{"spec":{
		"worker":{"replicas":1,"spec":{"containers":[{"name":"worker","image":"ghcr.io/dask/dask:2025.1.0"}]}},
		"scheduler":{"spec":{"containers":[{"name":"scheduler","image":"ghcr.io/dask/dask:2025.1.0"}]},
		             "service":{"ports":[{"name":"tcp-comm","port":8786,"targetPort":8786},{"name":"extra","port":9999,"targetPort":9999}]}}}}`)
	if err := c.Patch(ctx, &daskv1.DaskCluster{ObjectMeta: metav1.ObjectMeta{Namespace: userNamespace, Name: exampleCluster}}, client.RawPatch("application/merge-patch+json", patch)); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, waitFor, "new images, one worker, two service ports", func(ctx context.Context) (bool, string, error) {
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(userNamespace), client.MatchingLabels{reconciler.LabelCluster: exampleCluster}); err != nil {
			return false, "", err
		}
		var svc corev1.Service
		if err := c.Get(ctx, key(exampleCluster+"-scheduler"), &svc); err != nil {
			return false, "", err
		}
		var imgs []string
		for _, d := range deps.Items {
			imgs = append(imgs, d.Spec.Template.Spec.Containers[0].Image)
		}
		ok := len(deps.Items) == 2 && len(svc.Spec.Ports) == 2 && !slices.ContainsFunc(imgs, func(s string) bool { return s != "ghcr.io/dask/dask:2025.1.0" })
		return ok, fmt.Sprintf("images %v, %d ports", imgs, len(svc.Spec.Ports)), nil
	})

	// An autoscaler for the cluster: its status is written.
	createExample(t, c, "daskautoscaler.yaml")
	testenv.Eventually(t, waitFor, "autoscaler status", func(ctx context.Context) (bool, string, error) {
		var a daskv1.DaskAutoscaler
		if err := c.Get(ctx, key("example"), &a); err != nil {
			return false, "", err
		}
		return !equalZero(a.Status), fmt.Sprintf("%+v", a.Status), nil
	})

	// A job: its cluster and runner pod are created, a change to its
	// cluster spec updates the cluster, and the finished job's cluster is
	// deleted.
	createExample(t, c, "daskjob.yaml")
	var pod corev1.Pod
	testenv.Eventually(t, waitFor, "the job's cluster and runner pod", func(ctx context.Context) (bool, string, error) {
		errC := c.Get(ctx, key("example-job"), &daskv1.DaskCluster{})
		errP := c.Get(ctx, key("example-job-runner"), &pod)
		return errC == nil && errP == nil, fmt.Sprint(errC, errP), nil
	})
	jobPatch := []byte(`{"spec":{"cluster":{"spec":{"worker":{"replicas":1}}}}}`)
	if err := c.Patch(ctx, &daskv1.DaskJob{ObjectMeta: metav1.ObjectMeta{Namespace: userNamespace, Name: "example-job"}}, client.RawPatch("application/merge-patch+json", jobPatch)); err != nil {
		t.Fatal(err)
	}
	waitCluster(t, c, key("example-job"), func(dc *daskv1.DaskCluster) bool { return dc.Spec.Worker.Replicas == 1 })
	for _, phase := range []corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(&pod), &pod); err != nil {
			t.Fatal(err)
		}
		base := pod.DeepCopy()
		pod.Status.Phase = phase
		if err := c.Status().Patch(ctx, &pod, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	testenv.Eventually(t, waitFor, "the finished job's cluster deleted", func(ctx context.Context) (bool, string, error) {
		var j daskv1.DaskJob
		if err := c.Get(ctx, key("example-job"), &j); err != nil {
			return false, "", err
		}
		err := c.Get(ctx, key("example-job"), &daskv1.DaskCluster{})
		return j.Status.JobStatus == daskv1.JobSuccessful && apierrors.IsNotFound(err), "job " + j.Status.JobStatus + ", cluster " + fmt.Sprint(err), nil
	})
}

func equalZero(v any) bool {
	b, _ := json.Marshal(v)
	return string(b) == "{}"
}

// createExample creates examples/<file> in the user namespace.
func createExample(t *testing.T, c client.Client, file string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(examplesDir, file))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &u.Object); err != nil {
		t.Fatalf("examples/%s: %v", file, err)
	}
	u.SetNamespace(userNamespace)
	if err := c.Create(t.Context(), u); err != nil {
		t.Fatalf("creating examples/%s: %v", file, err)
	}
}

func waitDeployments(t *testing.T, c client.Client, cluster string, n int) {
	t.Helper()
	testenv.Eventually(t, waitFor, fmt.Sprintf("%d Deployments of %s", n, cluster), func(ctx context.Context) (bool, string, error) {
		var deps appsv1.DeploymentList
		if err := c.List(ctx, &deps, client.InNamespace(userNamespace), client.MatchingLabels{reconciler.LabelCluster: cluster}); err != nil {
			return false, "", err
		}
		return len(deps.Items) == n, fmt.Sprint(len(deps.Items)), nil
	})
}

func waitCluster(t *testing.T, c client.Client, key client.ObjectKey, ok func(*daskv1.DaskCluster) bool) {
	t.Helper()
	testenv.Eventually(t, waitFor, "DaskCluster "+key.Name, func(ctx context.Context) (bool, string, error) {
		var dc daskv1.DaskCluster
		if err := c.Get(ctx, key, &dc); err != nil {
			return false, err.Error(), nil
		}
		return ok(&dc), fmt.Sprintf("status %+v", dc.Status), nil
	})
}

// call is one kind of request: who asked is implied (the operator).
type call struct {
	Group, Resource, Verb, Namespace, Name string
}

func (c call) String() string {
	r := c.Resource
	if c.Group != "" {
		r += "." + c.Group
	}
	s := c.Verb + " " + r
	if c.Namespace != "" {
		s += " in " + c.Namespace
	}
	if c.Name != "" {
		s += " " + c.Name
	}
	return s
}

// auditEvent is the part of an audit.k8s.io/v1 Event the test reads.
type auditEvent struct {
	Verb             string `json:"verb"`
	RequestURI       string `json:"requestURI"`
	ImpersonatedUser *struct {
		Username string `json:"username"`
	} `json:"impersonatedUser"`
	ObjectRef *struct {
		Resource, Namespace, Name, APIGroup, Subresource string
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code int `json:"code"`
	} `json:"responseStatus"`
}

// operatorCalls reads the audit log: every resource request user made.
func operatorCalls(t *testing.T, user string) (calls []call, denied []string) {
	t.Helper()
	f, err := os.Open(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[call]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	lines := 0
	for sc.Scan() {
		lines++
		var e auditEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("audit log line %d: %v", lines, err)
		}
		if e.ImpersonatedUser == nil || e.ImpersonatedUser.Username != user {
			continue
		}
		if e.ResponseStatus != nil && e.ResponseStatus.Code == http.StatusForbidden {
			denied = append(denied, e.Verb+" "+e.RequestURI)
		}
		if e.ObjectRef == nil || e.ObjectRef.Resource == "" {
			continue // discovery (/api, /apis): granted to every authenticated user
		}
		r := e.ObjectRef.Resource
		if e.ObjectRef.Subresource != "" {
			r += "/" + e.ObjectRef.Subresource
		}
		c := call{Group: e.ObjectRef.APIGroup, Resource: r, Verb: e.Verb, Namespace: e.ObjectRef.Namespace, Name: e.ObjectRef.Name}
		if !seen[c] {
			seen[c] = true
			calls = append(calls, c)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if lines == 0 {
		t.Fatal("the audit log is empty; is the apiserver auditing?")
	}
	return calls, denied
}

// grant is one rule of a role bound to the operator, with its scope.
type grant struct {
	rule      rbacv1.PolicyRule
	namespace string // "" for a ClusterRole
	from      string
	used      map[string]bool // "resource verb [name]" used
}

func (g *grant) allows(c call) (key string, ok bool) {
	if g.namespace != "" && c.Namespace != g.namespace {
		return "", false
	}
	if !slices.Contains(g.rule.APIGroups, c.Group) || !slices.Contains(g.rule.Resources, c.Resource) || !slices.Contains(g.rule.Verbs, c.Verb) {
		return "", false
	}
	if len(g.rule.ResourceNames) > 0 {
		if !slices.Contains(g.rule.ResourceNames, c.Name) {
			return "", false
		}
		return c.Resource + " " + c.Verb + " " + c.Name, true
	}
	return c.Resource + " " + c.Verb, true
}

// notExercised are the permissions the operator needs but a healthy run
// does not always use, each with the code path that uses it.
var notExercised = map[string]string{
	"deployments get":        "ensure re-reads a child from the apiserver after a write conflict",
	"services get":           "ensure re-reads a child from the apiserver after a write conflict",
	"daskworkergroups get":   "ensure re-reads a child from the apiserver after a write conflict",
	"daskclusters get":       "ensure re-reads a child from the apiserver after a write conflict",
	"events patch":           "an event repeated within minutes becomes a series, which is patched",
	"daskworkergroups patch": "adopt: a DaskWorkerGroup a user created for an existing cluster gets an owner reference",
}

// checkRBAC compares the chart's roles bound to user with the audit log:
// no request was denied, every request is granted by a rule, and every
// rule (each resource, verb and name of it) was used, but for the
// permissions of notExercised.
func checkRBAC(t *testing.T, user string, chart rendered) {
	t.Helper()
	saName := strings.Split(user, ":")[3]
	var grants []*grant
	for _, b := range chart.objects {
		if b.GetKind() != "ClusterRoleBinding" && b.GetKind() != "RoleBinding" {
			continue
		}
		subjects, _, _ := unstructured.NestedSlice(b.Object, "subjects")
		bound := false
		for _, s := range subjects {
			m := s.(map[string]any)
			bound = bound || m["kind"] == "ServiceAccount" && m["name"] == saName && m["namespace"] == releaseNS
		}
		if !bound {
			continue
		}
		kind, _, _ := unstructured.NestedString(b.Object, "roleRef", "kind")
		name, _, _ := unstructured.NestedString(b.Object, "roleRef", "name")
		role := chart.find(kind, name)
		if role == nil {
			t.Fatalf("%s %s refers to %s %s, which the chart lacks", b.GetKind(), b.GetName(), kind, name)
		}
		for _, r := range rulesOf(t, role) {
			grants = append(grants, &grant{rule: r, namespace: b.GetNamespace(), from: kind + " " + name, used: map[string]bool{}})
		}
	}
	if len(grants) == 0 {
		t.Fatal("no role of the chart is bound to its ServiceAccount")
	}

	calls, denied := operatorCalls(t, user)
	for _, d := range denied {
		t.Errorf("the apiserver denied the operator: %s", d)
	}
	var names []string
	for _, c := range calls {
		names = append(names, c.String())
		granted := false
		for _, g := range grants {
			if k, ok := g.allows(c); ok {
				g.used[k] = true
				granted = true
			}
		}
		if !granted {
			t.Errorf("the operator called %s, which no rule of the chart grants", c)
		}
	}
	slices.Sort(names)
	t.Logf("the operator's calls (%d kinds):\n  %s", len(names), strings.Join(names, "\n  "))
	for _, g := range grants {
		for _, res := range g.rule.Resources {
			for _, verb := range g.rule.Verbs {
				keys := []string{res + " " + verb}
				if len(g.rule.ResourceNames) > 0 {
					keys = nil
					for _, n := range g.rule.ResourceNames {
						keys = append(keys, res+" "+verb+" "+n)
					}
				}
				for _, k := range keys {
					if g.used[k] {
						continue
					}
					if verb == "list" && g.used[res+" watch"] {
						t.Logf("granted, not used in this run: %s (informers list first when the apiserver does not stream the initial list over the watch: WatchList, Kubernetes 1.32+)", k)
						continue
					}
					if res == "customresourcedefinitions" && verb == "create" {
						t.Logf("granted, not used in this run: %s (the CRDs exist already, from the chart's crds/ and the kustomize base; server-side apply creates a missing one, as package e2e shows)", k)
						continue
					}
					if why, ok := notExercised[k]; ok {
						t.Logf("granted, not used in this run: %s (%s)", k, why)
						continue
					}
					t.Errorf("%s grants %s, which the operator never called: remove it, or list why in notExercised", g.from, k)
				}
			}
		}
	}
}
