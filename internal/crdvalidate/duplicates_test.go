package crdvalidate

import (
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// duplicateCase is a built-in object with one duplicate key of a list-map
// (or item of a list-set): its item at field, on line of src.
type duplicateCase struct {
	name     string
	list     listField // the list the duplicate is in
	accepted bool      // create accepts it: a warning, not a problem
	minors   []string  // judged for each ("" the newest embedded)
	field    string
	line     int
	message  string // in the warning of an accepted duplicate
	src      string
}

var duplicateCases = []duplicateCase{
	{name: "pod-env", list: listField{"io.k8s.api.core.v1.Container", "env"}, accepted: true, minors: []string{"", "1.30"},
		field: "spec.containers[0].env[1]", line: 12, message: `duplicate name "A": create accepts it`, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - name: c
    image: nginx
    env:
    - name: A
      value: "1"
    - name: A
      value: "2"
`},
	{name: "deployment-ports", list: listField{"io.k8s.api.core.v1.Container", "ports"}, accepted: true, minors: []string{"", "1.30", "1.20"},
		field: "spec.template.spec.containers[0].ports[1]", line: 18, message: `duplicate containerPort 8080 and protocol "TCP": create accepts it`, src: `apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  selector:
    matchLabels: {app: d}
  template:
    metadata:
      labels: {app: d}
    spec:
      containers:
      - name: c
        image: nginx
        ports:
        - containerPort: 8080
          name: metrics
        - containerPort: 8080
          name: probes
`},
	{name: "pod-ephemeral-env", list: listField{"io.k8s.api.core.v1.EphemeralContainer", "env"}, accepted: true, minors: []string{""},
		field: "spec.ephemeralContainers[0].env[1]", line: 13, message: `duplicate name "A"`, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - {name: c, image: nginx}
  ephemeralContainers:
  - name: e
    image: busybox
    env:
    - {name: A, value: "1"}
    - {name: A, value: "2"}
`},
	{name: "pod-ephemeral-ports", list: listField{"io.k8s.api.core.v1.EphemeralContainer", "ports"}, accepted: true, minors: []string{"", "1.23"},
		field: "spec.ephemeralContainers[0].ports[1]", line: 13, message: `duplicate containerPort 80 and protocol "UDP"`, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - {name: c, image: nginx}
  ephemeralContainers:
  - name: e
    image: busybox
    ports:
    - {containerPort: 80, protocol: UDP}
    - {containerPort: 80, protocol: UDP}
`},
	{name: "pod-host-aliases", list: listField{"io.k8s.api.core.v1.PodSpec", "hostAliases"}, accepted: true, minors: []string{"", "1.30"},
		field: "spec.hostAliases[1]", line: 8, message: `duplicate ip "10.0.0.1"`, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  hostAliases:
  - {ip: 10.0.0.1, hostnames: [a]}
  - {ip: 10.0.0.1, hostnames: [b]}
  containers:
  - {name: c, image: nginx}
`},
	{name: "pod-image-pull-secrets", list: listField{"io.k8s.api.core.v1.PodSpec", "imagePullSecrets"}, accepted: true, minors: []string{""},
		field: "spec.imagePullSecrets[1]", line: 8, message: `duplicate name "registry"`, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  imagePullSecrets:
  - name: registry
  - name: registry
  containers:
  - {name: c, image: nginx}
`},
	{name: "endpointslice-addresses", list: listField{"io.k8s.api.discovery.v1.Endpoint", "addresses"}, accepted: true, minors: []string{"", "1.21"},
		field: "endpoints[0].addresses[1]", line: 9, message: `duplicate item "10.0.0.1"`, src: endpointSlice("v1")},
	{name: "endpointslice-v1beta1-addresses", list: listField{"io.k8s.api.discovery.v1beta1.Endpoint", "addresses"}, accepted: true, minors: []string{"1.20"},
		field: "endpoints[0].addresses[1]", line: 9, message: `duplicate item "10.0.0.1"`, src: endpointSlice("v1beta1")},
	{name: "endpointslice-v1alpha1-addresses", list: listField{"io.k8s.api.discovery.v1alpha1.Endpoint", "addresses"}, accepted: true, minors: []string{"1.16"},
		field: "endpoints[0].addresses[1]", line: 9, message: `duplicate item "10.0.0.1"`, src: endpointSlice("v1alpha1")},
	{name: "csidriver-modes", list: listField{"io.k8s.api.storage.v1.CSIDriverSpec", "volumeLifecycleModes"}, accepted: true, minors: []string{"", "1.18"},
		field: "spec.volumeLifecycleModes[1]", line: 7, message: `duplicate item "Persistent"`, src: `apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: csi.example.com
spec:
  volumeLifecycleModes: [Persistent,
    Persistent]
`},
	// The kind's validation refuses these: they stay problems.
	{name: "pod-container-names", list: listField{"io.k8s.api.core.v1.PodSpec", "containers"}, minors: []string{"", "1.30"},
		field: "spec.containers[1]", line: 8, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
  - {name: c, image: nginx}
  - {name: c, image: busybox}
`},
	{name: "pod-volume-mounts", list: listField{"io.k8s.api.core.v1.Container", "volumeMounts"}, minors: []string{""},
		field: "spec.containers[0].volumeMounts[1]", line: 13, src: `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  volumes:
  - {name: a, emptyDir: {}}
  - {name: b, emptyDir: {}}
  containers:
  - name: c
    image: nginx
    volumeMounts: [{name: a, mountPath: /data},
      {name: b, mountPath: /data}]
`},
	{name: "service-ports", list: listField{"io.k8s.api.core.v1.ServiceSpec", "ports"}, minors: []string{"", "1.30"},
		field: "spec.ports[1]", line: 9, src: `apiVersion: v1
kind: Service
metadata:
  name: s
spec:
  selector: {app: s}
  ports:
  - {name: a, port: 8080}
  - {name: b, port: 8080}
`},
	{name: "job-exit-codes", list: listField{"io.k8s.api.batch.v1.PodFailurePolicyOnExitCodesRequirement", "values"}, minors: []string{""},
		field: "spec.podFailurePolicy.rules[0].onExitCodes.values[1]", line: 10, src: `apiVersion: batch/v1
kind: Job
metadata:
  name: j
spec:
  podFailurePolicy:
    rules:
    - action: FailJob
      onExitCodes: {operator: In, values: [1,
        1]}
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: nginx}
`},
}

// endpointSlice is an EndpointSlice of discovery.k8s.io/version with a
// duplicate address on line 9.
func endpointSlice(version string) string {
	return `apiVersion: discovery.k8s.io/` + version + `
kind: EndpointSlice
metadata:
  name: e
addressType: IPv4
endpoints:
- addresses:
  - 10.0.0.1
  - 10.0.0.1
`
}

// atOrUnder reports whether one of ps is at field or under it.
func atOrUnder(ps []project.Problem, field string) bool {
	return slices.ContainsFunc(ps, func(p project.Problem) bool {
		return p.Field == field || strings.HasPrefix(p.Field, field+".") || strings.HasPrefix(p.Field, field+"[")
	})
}

// TestBuiltinDuplicates judges built-in objects with a duplicate list-map
// key or list-set item by their schema alone (as with
// K8S_CRD_RESOLVER_BUILTINS=none, or a minor k8s-crd-resolver-builtins
// does not link): a duplicate the kind's create accepts is a warning at
// the item's line, and the object valid; any other stays a problem. Every
// list of createAcceptsDuplicates has a case, and the definition walk
// finds each case's list. With k8s-crd-resolver-builtins installed, the
// apiserver's hand-written validation of 1.37 gives each case the same
// verdict at the duplicate.
func TestBuiltinDuplicates(t *testing.T) {
	covered := map[listField]bool{}
	for _, tc := range duplicateCases {
		if tc.accepted != createAcceptsDuplicates[tc.list] {
			t.Errorf("%s: accepted %v, but createAcceptsDuplicates says %v for %v", tc.name, tc.accepted, !tc.accepted, tc.list)
		}
		covered[tc.list] = true
		for _, minor := range tc.minors {
			t.Run(tc.name+"/"+minor, func(t *testing.T) {
				res, _, err := Files(t.Context(), []Input{{Name: "in.yaml", Content: []byte(tc.src)}}, Options{KubernetesVersion: minor})
				if err != nil {
					t.Fatal(err)
				}
				r := res[0]
				if !tc.accepted {
					i := slices.IndexFunc(r.Problems, func(p project.Problem) bool { return p.Field == tc.field })
					if i < 0 || r.Problems[i].Line != tc.line || !strings.Contains(r.Problems[i].Message, "Duplicate value") {
						t.Errorf("want a Duplicate value problem at %s, line %d; got %v", tc.field, tc.line, r.Problems)
					}
					return
				}
				if len(r.Problems) > 0 {
					t.Errorf("want valid, got %v", r.Problems)
				}
				i := slices.IndexFunc(r.Warnings, func(p project.Problem) bool { return p.Field == tc.field })
				if i < 0 {
					t.Fatalf("no warning at %s: %v", tc.field, r.Warnings)
				}
				w := r.Warnings[i]
				if w.Line != tc.line || !strings.Contains(w.Message, tc.message) || !strings.Contains(w.Message, "server-side apply (kubectl apply --server-side) refuses it") {
					t.Errorf("warning %s at line %d, want line %d and %q", w, w.Line, tc.line, tc.message)
				}
			})
			t.Run(tc.name+"/"+minor+"/walk", func(t *testing.T) {
				// The definition walk finds the case's list, accepted or not.
				head := strings.SplitN(tc.src, "\n", 3)
				gv, _ := schema.ParseGroupVersion(strings.TrimPrefix(head[0], "apiVersion: "))
				idx, err := builtinCache.index(minor)
				if err != nil {
					t.Fatal(err)
				}
				def := idx.def[gv.WithKind(strings.TrimPrefix(head[1], "kind: "))]
				b, err := schemas.Load(idx.minor)
				if err != nil {
					t.Fatal(err)
				}
				segs := project.FieldSegments(tc.field)
				if owner, _ := definitionAt(b, def, segs[:len(segs)-2]); owner != tc.list.def || segs[len(segs)-2] != tc.list.property {
					t.Errorf("%s (%s): the walk ends at %s, property %s; want %v", tc.field, def, owner, segs[len(segs)-2], tc.list)
				}
			})
		}
	}
	for l := range createAcceptsDuplicates {
		if !covered[l] {
			t.Errorf("no case of %v, which createAcceptsDuplicates lists", l)
		}
	}
	t.Run("hand-written", func(t *testing.T) {
		h := builtinsForTest(t)
		defer h.Close()
		for _, tc := range duplicateCases {
			if !slices.Contains(tc.minors, "") {
				continue
			}
			r := handWrittenFiles(t, h, "", tc.src)
			if refused := atOrUnder(r.Problems, tc.field); refused == tc.accepted {
				t.Errorf("%s: the hand-written validation refuses the duplicate at %s: %v, want %v (problems %v)", tc.name, tc.field, refused, !tc.accepted, r.Problems)
			}
		}
	})
}

// TestCustomResourceDuplicates: the same duplicate env name in a custom
// resource, whose CRD embeds a PodSpec with x-kubernetes-list-type: map,
// is a problem (the apiserver refuses it on create), not a warning.
func TestCustomResourceDuplicates(t *testing.T) {
	const src = `apiVersion: kubernetes.dask.org/v1
kind: DaskWorkerGroup
metadata:
  name: wg
spec:
  cluster: example
  worker:
    replicas: 2
    spec:
      containers:
        - name: worker
          image: ghcr.io/dask/dask:2024.12.1
          env: [{name: A, value: "1"},
            {name: A, value: "2"}]
          ports: [{containerPort: 8786}, {containerPort: 8786}]
`
	res, _, err := Files(t.Context(), []Input{{Name: "wg.yaml", Content: []byte(src)}}, Options{CRDs: corpusCRDs(t)})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	for _, want := range []struct {
		field string
		line  int
	}{{"spec.worker.spec.containers[0].env[1]", 14}, {"spec.worker.spec.containers[0].ports[1]", 15}} {
		i := slices.IndexFunc(r.Problems, func(p project.Problem) bool { return p.Field == want.field })
		if i < 0 || r.Problems[i].Line != want.line || !strings.Contains(r.Problems[i].Message, "Duplicate value") {
			t.Errorf("want a Duplicate value problem at %s, line %d; got %v", want.field, want.line, r.Problems)
		}
	}
	if len(r.Warnings) > 0 {
		t.Errorf("want no warning, got %v", r.Warnings)
	}
}
