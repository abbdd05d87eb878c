package integration

// What kube-apiserver v1.37.2 (the cached control plane; validation
// ratcheting on by default since 1.30, GA in 1.33) does to an object stored under the old CRD
// once the CRD is updated to the new schema, as TestSchemaUpdate measures
// it. "read" is a GET under the new schema; the probes are dry-run updates
// of the stored object, each accepted under the old schema first:
// "change F" replaces the field the change is about, "other" changes an
// unrelated field, "label" touches only metadata; "recreate" is a dry-run
// create of the stored spec under another name (a restore from backup, a
// delete and apply); "apply" probes are server-side applies by a second
// field manager. Every CRD update itself was accepted. diff is what
// `k8s-crd-resolver diff` says; the test fails when it calls a change
// breaking and the apiserver loses no data and refuses no probe, or the
// other way round.
//
//	change (old -> new)                read          change F  other  label  recreate  diff
//	property-removed                   pruned (1)    -         ok     ok     ok        breaking
//	property-added                     same          ok        ok     ok     ok        compatible
//	property-added over preserved      same          REJECT    ok (3) ok     REJECT    breaking (12)
//	required-added                     same          ok (8)    REJECT ok (2) REJECT    breaking
//	required-added on spec.inner       same          REJECT    ok (2) ok     REJECT    breaking
//	required-added in atomic list item same          -         ok (2) ok     REJECT    breaking
//	maxItems 5 -> 2 (4 stored)         same          REJECT    ok (3) ok     REJECT    breaking
//	maxLength 5 -> 2 in atomic list    same          REJECT    ok (3) ok     REJECT    breaking
//	enum minus the stored value        same          -         ok (3) ok     REJECT    breaking
//	CEL rule added (size <= 2, 4 held) same          REJECT    ok (3) ok     REJECT    breaking
//	nullable removed (null stored)     pruned (1)    -         ok     ok     ok        breaking
//	maxItems/maxLength loosened        same          ok        ok     ok     ok        compatible
//	type string -> integer             same (4)      REJECT    ok (3) ok     REJECT    breaking
//	int-or-string -> integer           same (4)      REJECT    ok (3) ok     REJECT    breaking
//	list-type atomic -> map, dup. keys same          ok (5)    ok (5) ok     REJECT    breaking
//	list-type atomic -> map, no key    same          REJECT    REJECT REJECT REJECT    breaking (10)
//	default changed (+ default added)  defaults (6)  -         ok     ok     ok        compatible
//	preserve-unknown-fields removed    pruned (1)    -         ok     ok     ok        breaking
//	map-type granular -> atomic        same          ok (9)    ok     ok     ok        breaking (9)
//	list-type map -> atomic            same          ok (9)    -      ok     ok        breaking (9)
//	Dask 1.30 -> 1.37 (resourceClaims) pruned (7)    -         ok     ok     ok        breaking
//	Dask 1.29 -> 1.37 (hostAliases)    same          -         REJECT REJECT REJECT    breaking (11)
//
//	(1) Pruned on every read from etcd: the value is gone from GET at once,
//	    but storage keeps it until the object is next written: the CRD put
//	    back at the old schema reads it again; after one write under the
//	    new schema (a label), it is gone for good (case Storage).
//	(2) required is ratcheted at the object that lists it: an update that
//	    leaves that object unchanged passes (required on spec: a label-only
//	    update; on spec.inner: a change of spec.keep), any change inside it,
//	    even to another field ("change inner.x"), is rejected. In an item of
//	    an atomic list the same holds while the list is unchanged. The diff
//	    marks it ratcheted, except for a key of a new map list (10).
//	(3) Ratcheted: the offending value is unchanged, so its error is dropped.
//	(4) The stored string is served as is; no coercion on read.
//	(5) Not ratcheted per value but per object: when the old object already
//	    breaks the list-map invariant (duplicate keys), the apiserver skips
//	    that check on update altogether (apiextensions-apiserver
//	    pkg/registry/customresource/strategy.go, ValidateUpdate), so even an
//	    update that edits the list passes; only a create sees "Duplicate
//	    value". The diff marks it ratcheted (keys old items always had, or
//	    the new schema defaults). Server-side apply now merges by key
//	    (not probed in this direction; see (9) for the other).
//	(6) A stored value, defaulted at create, is kept (mode stays "fast");
//	    a default on a field the object lacks is applied on read.
//	(7) PodResourceClaim.source (1.30) is pruned from the stored
//	    scheduler's resourceClaims; the plain example (no claims) reads
//	    unchanged and updates (replicas) under 1.37. The diff's two breaking
//	    changes are this removal, under scheduler and worker.
//	(8) Setting the new required field is the fix, accepted.
//	(9) Updates pass, but server-side apply changes: another field manager
//	    applying sel.b (sel.a belongs to the creator), or the item b of
//	    ports (the item a is the creator's), merged under the old schema
//	    and now conflicts (409, ".spec.sel", ".spec.ports"); with force it
//	    replaces the whole map or list and drops the creator's sel.a or item
//	    a. A write valid before is refused, or loses stored data: the
//	    apiserver breaks such an object, and the diff calls it breaking.
//	(10) The stored item has no name, which the new map list keys on and
//	    so requires: no update passes, not even a label-only one (so neither
//	    does removing a finalizer); the "Required value" error is not
//	    ratcheted, since an item without its key cannot be matched with the
//	    stored one. Kubernetes did this to PodSpec.hostAliases (a map list
//	    on ip): see (11).
//	(11) The compiled PodSpec lists became map lists between 1.29 and 1.30
//	    (38 breaking changes). A DaskCluster stored under 1.29 with a host
//	    alias without ip (the 1.29 CRD accepts it) can, under 1.37, not be
//	    updated at all: scaling the workers, a label, a re-create all fail
//	    with "spec.scheduler.spec.hostAliases[0].ip: Required value". The
//	    plain example next to it reads unchanged and scales.
//	(12) The old schema kept unknown fields; the stored bar: 5 now fails
//	    type: string, but only once bar changes: ratcheted, as the diff says.
//
// The diff first disagreed with the apiserver on (2), (5), (9) and (12):
// it called required, property-added over preserved fields and list-type
// changes with colliding items unratcheted, and making a map or list atomic
// compatible. internal/schemadiff now follows the apiserver; these subtests
// keep the two equal.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// suGroup is the API group of every CRD this file installs (the Dask pairs
// in subgroups of it), so the operator's own CRDs stay untouched.
const suGroup = "schemaupdate.example.com"

var (
	crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	// dryRun makes an update a probe: validated, admitted, not stored.
	dryRun = metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}}
)

// warnings records the apiserver's warning headers, which carry the marker
// (deprecationWarning) that tells which CRD spec served a request.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

// add records a warning header's text (kube.onWarning).
func (w *warnings) add(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.seen
	w.seen = nil
	return s
}

// suEnv is one test's clients: dyn for everything, its warnings recorded.
type suEnv struct {
	dyn  *kube
	warn *warnings
	bin  string
	ns   string
	gen  int
}

func newSUEnv(t *testing.T) *suEnv {
	t.Helper()
	dyn := kubeAPI(t)
	w := &warnings{}
	dyn.onWarning = w.add
	e := &suEnv{dyn: dyn, warn: w, bin: filepath.Join(binDir, "k8s-crd-resolver")}
	ns := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Namespace",
		"metadata": map[string]any{"generateName": "schemaupdate-"},
	}}
	got, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Create(t.Context(), ns, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating namespace: %v", err)
	}
	e.ns = got.GetName()
	return e
}

// suCRD is a one-version (v1) CRD plural.suGroup whose root schema is
// {type: object, properties: {spec: <spec>}}.
func suCRD(t *testing.T, plural, kind, spec string) *unstructured.Unstructured {
	t.Helper()
	var s map[string]any
	if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
		t.Fatalf("%s schema: %v", plural, err)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": plural + "." + suGroup},
		"spec": map[string]any{
			"group": suGroup,
			"names": map[string]any{"kind": kind, "plural": plural, "singular": plural, "listKind": kind + "List"},
			"scope": "Namespaced",
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type":       "object",
					"properties": map[string]any{"spec": s},
				}},
			}},
		},
	}}
}

// writeCRD writes crd as YAML to dir/name for the diff command.
func writeCRD(t *testing.T, dir, name string, crd *unstructured.Unstructured) {
	t.Helper()
	b, err := yaml.Marshal(crd.Object)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffChange and diffReport are `k8s-crd-resolver diff --output json`.
type diffChange struct {
	CRD      string `json:"crd"`
	Version  string `json:"version"`
	Path     string `json:"path"`
	Kind     string `json:"kind"`
	Breaking bool   `json:"breaking"`
	Reason   string `json:"reason"`
	// Ratcheted: validation ratcheting lets an update through that leaves
	// the offending value unchanged (absent: false).
	Ratcheted bool `json:"ratcheted"`
	Old       any  `json:"old"`
	New       any  `json:"new"`
}

type diffReport struct {
	Changes             []diffChange `json:"changes"`
	Breaking            int          `json:"breaking"`
	Compatible          int          `json:"compatible"`
	DescriptionsChanged int          `json:"descriptionsChanged"`
}

// diff runs `k8s-crd-resolver diff --output json old new` on the two CRDs
// (as files) and returns its report; exit 1 (changes) is expected.
func (e *suEnv) diff(t *testing.T, old, next *unstructured.Unstructured) diffReport {
	t.Helper()
	dir := t.TempDir()
	writeCRD(t, dir, "old.yaml", old)
	writeCRD(t, dir, "new.yaml", next)
	// In the temporary directory, the project root of files outside git.
	cmd := exec.CommandContext(t.Context(), e.bin, "diff", "--output", "json", "old.yaml", "new.yaml")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Fatalf("k8s-crd-resolver diff: exit %d, want 1 (changes)\nstdout:\n%s\nstderr:\n%s", code, out, stderr.String())
	}
	var r diffReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("k8s-crd-resolver diff --output json: %v\n%s", err, out)
	}
	return r
}

// setCRD creates or updates the CRD to crd, marked with a fresh
// deprecationWarning, and waits until requests for its resource are
// served by that spec: the apiserver swaps a CRD's serving storage
// asynchronously, and the warning header of a GET names the spec served.
func (e *suEnv) setCRD(t *testing.T, crd *unstructured.Unstructured, probe func(ctx context.Context) error) {
	t.Helper()
	e.gen++
	marker := fmt.Sprintf("schemaupdate spec %s #%d", crd.GetName(), e.gen)
	crd = crd.DeepCopy()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	for _, v := range versions {
		v.(map[string]any)["deprecated"] = true
		v.(map[string]any)["deprecationWarning"] = marker
	}
	if err := unstructured.SetNestedSlice(crd.Object, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	crds := e.dyn.Resource(crdGVR)
	cur, err := crds.Get(t.Context(), crd.GetName(), metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if _, err := crds.Create(t.Context(), crd, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating CRD %s: %v", crd.GetName(), err)
		}
		t.Cleanup(func() {
			_ = crds.Delete(context.WithoutCancel(t.Context()), crd.GetName(), metav1.DeleteOptions{})
		})
	case err != nil:
		t.Fatal(err)
	default:
		crd.SetResourceVersion(cur.GetResourceVersion())
		if _, err := crds.Update(t.Context(), crd, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("updating CRD %s: %v", crd.GetName(), err)
		}
	}
	eventually(t, marker, func(ctx context.Context) (bool, string, error) {
		e.warn.take()
		if err := probe(ctx); err != nil {
			return false, err.Error(), nil
		}
		seen := e.warn.take()
		return slices.Contains(seen, marker), fmt.Sprint(seen), nil
	})
}

// recreate is the probe every case runs last: a create of the stored
// object's spec under another name, what a restore from a backup or a
// delete-and-apply does.
const recreate = "recreate"

// suProbe is one update of the stored object: spec replaced by Spec, or,
// when Spec is empty, only a label added (the spec left as stored).
type suProbe struct {
	Name string
	Spec string
	// Edit, when set, edits the stored spec instead of Spec.
	Edit func(spec map[string]any)
	// Apply, when set, makes the probe a server-side apply of this spec
	// by another field manager (ssaManager), without force unless Force.
	Apply string
	Force bool
	// Keeps, when set, is a part of the spec (YAML) the probe's result must
	// still hold; a result without it counts as a failed probe.
	Keeps string
}

// errDropped: a probe's result lost stored values it should keep.
var errDropped = errors.New("stored values dropped")

// ssaManager is the field manager of the server-side apply probes; the
// stored object's fields belong to the manager that created it.
const ssaManager = "schemaupdate-other"

// suCase is one schema change: a CRD with the spec schema Old, an object
// with spec Obj stored under it, the CRD updated to New, then the object
// read and each probe tried (dry run). Want* hold what the apiserver
// measurably does; WantKinds the changes the diff must report.
type suCase struct {
	Name, Plural, Kind string
	Old, New, Obj      string
	Probes             []suProbe
	// WantKinds: "path kind" of every change the diff reports.
	WantKinds []string
	// Unchanged names the probe that changes the object but leaves the
	// value the change makes invalid as stored: whether the apiserver
	// accepts it is whether the change is ratcheted, which the diff's
	// breaking changes must say alike.
	Unchanged string
	// WantLost: a value stored under Old is gone or changed when the
	// object is read under New (values New adds, defaults, are no loss).
	WantLost bool
	// WantRejected: the probes the apiserver rejects under New (all are
	// accepted under Old, which the test checks first).
	WantRejected []string
	// WantRead, when set, is the spec read under New (YAML).
	WantRead string
	// CheckRead, when set, checks the spec read under New.
	CheckRead func(t *testing.T, spec map[string]any)
	// Storage: also show whether the data lost on read is still in
	// storage (CRD back to Old, read) and gone once written under New.
	Storage bool
	// Group is the CRD's API group when not suGroup.
	Group string
	// OldCRD, NewCRD and Spec, when set, replace Old, New and Obj (the
	// Dask pair); WantKinds is then a subset of what the diff reports.
	OldCRD, NewCRD func(t *testing.T, e *suEnv) *unstructured.Unstructured
	Spec           func(t *testing.T) map[string]any
	// Untouched, when set, is the spec of a second object, one that uses
	// none of the paths the breaking changes touch: read unchanged and
	// updated (for real) under New.
	Untouched func(t *testing.T) map[string]any
}

var suCases = []suCase{
	{
		Name: "property-removed", Plural: "removeds", Kind: "Removed",
		Old: `{type: object, properties: {keep: {type: string}, foo: {type: string}}}`,
		New: `{type: object, properties: {keep: {type: string}}}`,
		Obj: `{keep: a, foo: b}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, foo: b}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec.foo property-removed"},
		WantLost:  true,
		WantRead:  `{keep: a}`,
		Storage:   true,
	},
	{
		Name: "property-added", Plural: "addeds", Kind: "Added",
		Old: `{type: object, properties: {keep: {type: string}}}`,
		New: `{type: object, properties: {keep: {type: string}, bar: {type: string}}}`,
		Obj: `{keep: a}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2}`},
			{Name: "set bar", Spec: `{keep: a, bar: b}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec.bar property-added"},
	},
	{
		// Added where the old schema kept unknown fields: a stored value
		// there is now validated.
		Name: "property-added over preserved unknown fields", Plural: "overunknowns", Kind: "OverUnknown",
		Old: `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {keep: {type: string}}}`,
		New: `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {keep: {type: string}, bar: {type: string}}}`,
		Obj: `{keep: a, bar: 5}`,
		Probes: []suProbe{
			{Name: "change bar", Spec: `{keep: a, bar: 6}`},
			{Name: "change keep", Spec: `{keep: a2, bar: 5}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.bar property-added"},
		WantRejected: []string{"change bar", recreate},
	},
	{
		Name: "required-added", Plural: "requireds", Kind: "Required",
		Old: `{type: object, properties: {keep: {type: string}, bar: {type: string}}}`,
		New: `{type: object, required: [bar], properties: {keep: {type: string}, bar: {type: string}}}`,
		Obj: `{keep: a}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2}`},
			{Name: "label only"},
			{Name: "set bar", Spec: `{keep: a, bar: b}`},
		},
		Unchanged:    "label only",
		WantKinds:    []string{".spec.bar required-added"},
		WantRejected: []string{"change keep", recreate},
	},
	{
		// The same, one level down: required on spec.inner.
		Name: "required-added nested", Plural: "nestedrequireds", Kind: "NestedRequired",
		Old: `{type: object, properties: {keep: {type: string}, inner: {type: object, properties: {x: {type: string}, bar: {type: string}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, inner: {type: object, required: [bar], properties: {x: {type: string}, bar: {type: string}}}}}`,
		Obj: `{keep: a, inner: {x: a}}`,
		Probes: []suProbe{
			{Name: "change inner.x", Spec: `{keep: a, inner: {x: b}}`},
			{Name: "change keep", Spec: `{keep: a2, inner: {x: a}}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.inner.bar required-added"},
		WantRejected: []string{"change inner.x", recreate},
	},
	{
		Name: "maxItems-tightened", Plural: "tighteneds", Kind: "Tightened",
		Old: `{type: object, properties: {keep: {type: string}, items: {type: array, maxItems: 5, items: {type: string}}}}`,
		New: `{type: object, properties: {keep: {type: string}, items: {type: array, maxItems: 2, items: {type: string}}}}`,
		Obj: `{keep: a, items: [a, b, c, d]}`,
		Probes: []suProbe{
			{Name: "change items", Spec: `{keep: a, items: [a, b, c]}`},
			{Name: "change keep", Spec: `{keep: a2, items: [a, b, c, d]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.items constraint-tightened"},
		WantRejected: []string{"change items", recreate},
	},
	{
		Name: "enum-tightened", Plural: "enums", Kind: "Enum",
		Old: `{type: object, properties: {keep: {type: string}, mode: {type: string, enum: [fast, slow, legacy]}}}`,
		New: `{type: object, properties: {keep: {type: string}, mode: {type: string, enum: [fast, slow]}}}`,
		Obj: `{keep: a, mode: legacy}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, mode: legacy}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.mode constraint-tightened"},
		WantRejected: []string{recreate},
	},
	{
		Name: "maxLength tightened in an atomic list", Plural: "listitems", Kind: "ListItem",
		Old: `{type: object, properties: {keep: {type: string}, tags: {type: array, items: {type: string, maxLength: 5}}}}`,
		New: `{type: object, properties: {keep: {type: string}, tags: {type: array, items: {type: string, maxLength: 2}}}}`,
		Obj: `{keep: a, tags: [abcd]}`,
		Probes: []suProbe{
			{Name: "change tags", Spec: `{keep: a, tags: [abcd, x]}`},
			{Name: "change keep", Spec: `{keep: a2, tags: [abcd]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.tags[*] constraint-tightened"},
		WantRejected: []string{"change tags", recreate},
	},
	{
		Name: "required-added in an atomic list item", Plural: "itemrequireds", Kind: "ItemRequired",
		Old: `{type: object, properties: {keep: {type: string}, hosts: {type: array, items: {type: object, properties: {ip: {type: string}, name: {type: string}}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, hosts: {type: array, items: {type: object, required: [ip], properties: {ip: {type: string}, name: {type: string}}}}}}`,
		Obj: `{keep: a, hosts: [{name: h}]}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, hosts: [{name: h}]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.hosts[*].ip required-added"},
		WantRejected: []string{recreate},
	},
	{
		Name: "CEL rule added", Plural: "rules", Kind: "Rule",
		Old: `{type: object, properties: {keep: {type: string}, tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}}}}`,
		New: `{type: object, properties: {keep: {type: string}, tags: {type: array, maxItems: 10, items: {type: string, maxLength: 10}, x-kubernetes-validations: [{rule: "self.size() <= 2", message: "at most 2 tags"}]}}}`,
		Obj: `{keep: a, tags: [a, b, c, d]}`,
		Probes: []suProbe{
			{Name: "change tags", Spec: `{keep: a, tags: [a, b, c]}`},
			{Name: "change keep", Spec: `{keep: a2, tags: [a, b, c, d]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.tags constraint-tightened"},
		WantRejected: []string{"change tags", recreate},
	},
	{
		Name: "nullable removed", Plural: "nullables", Kind: "Nullable",
		Old: `{type: object, properties: {keep: {type: string}, foo: {type: string, nullable: true}}}`,
		New: `{type: object, properties: {keep: {type: string}, foo: {type: string}}}`,
		Obj: `{keep: a, foo: null}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, foo: null}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec.foo constraint-tightened"},
		WantLost:  true,
		WantRead:  `{keep: a}`,
	},
	{
		Name: "maxItems-loosened", Plural: "looseneds", Kind: "Loosened",
		Old: `{type: object, properties: {keep: {type: string}, items: {type: array, maxItems: 2, items: {type: string, maxLength: 3}}}}`,
		New: `{type: object, properties: {keep: {type: string}, items: {type: array, maxItems: 5, items: {type: string, maxLength: 8}}}}`,
		Obj: `{keep: a, items: [a, b]}`,
		Probes: []suProbe{
			{Name: "change items", Spec: `{keep: a, items: [abc]}`},
			{Name: "change keep", Spec: `{keep: a2, items: [a, b]}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec.items constraint-loosened", ".spec.items[*] constraint-loosened"},
	},
	{
		Name: "type-changed", Plural: "typechangeds", Kind: "TypeChanged",
		Old: `{type: object, properties: {keep: {type: string}, foo: {type: string}}}`,
		New: `{type: object, properties: {keep: {type: string}, foo: {type: integer}}}`,
		Obj: `{keep: a, foo: abc}`,
		Probes: []suProbe{
			{Name: "change foo", Spec: `{keep: a, foo: abd}`},
			{Name: "change keep", Spec: `{keep: a2, foo: abc}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.foo type-changed"},
		WantRejected: []string{"change foo", recreate},
	},
	{
		Name: "list-type atomic to map", Plural: "listtypes", Kind: "ListType",
		Old: `{type: object, properties: {keep: {type: string}, ports: {type: array, items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}`,
		Obj: `{keep: a, ports: [{name: a, port: 1}, {name: a, port: 2}]}`,
		Probes: []suProbe{
			{Name: "change ports", Spec: `{keep: a, ports: [{name: a, port: 1}, {name: a, port: 3}]}`},
			{Name: "change keep", Spec: `{keep: a2, ports: [{name: a, port: 1}, {name: a, port: 2}]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.ports list-type-changed"},
		WantRejected: []string{recreate},
	},
	{
		// The old schema does not require name; the new one must (a map
		// list's keys are required or defaulted).
		Name: "list-type atomic to map, item without key", Plural: "keylesses", Kind: "Keyless",
		Old: `{type: object, properties: {keep: {type: string}, ports: {type: array, items: {type: object, properties: {name: {type: string}, port: {type: integer}}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}`,
		Obj: `{keep: a, ports: [{port: 1}]}`,
		Probes: []suProbe{
			{Name: "change ports", Spec: `{keep: a, ports: [{port: 2}]}`},
			{Name: "change keep", Spec: `{keep: a2, ports: [{port: 1}]}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.ports list-type-changed", ".spec.ports[*].name required-added"},
		WantRejected: []string{"change ports", "change keep", "label only", recreate},
	},
	{
		Name: "list-type map to atomic", Plural: "atomiclists", Kind: "AtomicList",
		Old: `{type: object, properties: {keep: {type: string}, ports: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, ports: {type: array, x-kubernetes-list-type: atomic, items: {type: object, required: [name], properties: {name: {type: string}, port: {type: integer}}}}}}`,
		Obj: `{keep: a, ports: [{name: a, port: 1}]}`,
		Probes: []suProbe{
			{Name: "change ports", Spec: `{keep: a, ports: [{name: a, port: 2}]}`},
			{Name: "apply ports b", Apply: `{ports: [{name: b, port: 2}]}`},
			{Name: "force-apply ports b", Apply: `{ports: [{name: b, port: 2}]}`, Force: true, Keeps: `{ports: [{name: a, port: 1}]}`},
			{Name: "label only"},
		},
		WantKinds:    []string{".spec.ports list-type-changed"},
		WantRejected: []string{"apply ports b", "force-apply ports b"},
	},
	{
		Name: "default-changed", Plural: "defaults", Kind: "Default",
		Old: `{type: object, properties: {keep: {type: string}, mode: {type: string, default: fast}}}`,
		New: `{type: object, properties: {keep: {type: string}, mode: {type: string, default: slow}, level: {type: integer, default: 3}}}`,
		Obj: `{keep: a}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, mode: fast}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec.mode default-changed", ".spec.level property-added"},
		// Stored with mode: fast (defaulted at create); read with
		// level: 3 added (defaulting on read), mode kept.
		WantRead: `{keep: a, mode: fast, level: 3}`,
	},
	{
		Name: "preserve-unknown removed", Plural: "preserves", Kind: "Preserve",
		Old: `{type: object, x-kubernetes-preserve-unknown-fields: true, properties: {keep: {type: string}}}`,
		New: `{type: object, properties: {keep: {type: string}}}`,
		Obj: `{keep: a, extra: {x: 1}}`,
		Probes: []suProbe{
			{Name: "change keep", Spec: `{keep: a2, extra: {x: 1}}`},
			{Name: "label only"},
		},
		WantKinds: []string{".spec preserve-unknown-changed"},
		WantLost:  true,
		WantRead:  `{keep: a}`,
	},
	{
		Name: "int-or-string to integer", Plural: "intorstrings", Kind: "IntOrString",
		Old: `{type: object, properties: {keep: {type: string}, port: {x-kubernetes-int-or-string: true}}}`,
		New: `{type: object, properties: {keep: {type: string}, port: {type: integer}}}`,
		Obj: `{keep: a, port: http}`,
		Probes: []suProbe{
			{Name: "change port", Spec: `{keep: a, port: https}`},
			{Name: "change keep", Spec: `{keep: a2, port: http}`},
			{Name: "label only"},
		},
		Unchanged:    "change keep",
		WantKinds:    []string{".spec.port int-or-string-changed"},
		WantRejected: []string{"change port", recreate},
	},
	{
		Name: "map-type granular to atomic", Plural: "maptypes", Kind: "MapType",
		Old: `{type: object, properties: {keep: {type: string}, sel: {type: object, properties: {a: {type: string}, b: {type: string}}}}}`,
		New: `{type: object, properties: {keep: {type: string}, sel: {type: object, x-kubernetes-map-type: atomic, properties: {a: {type: string}, b: {type: string}}}}}`,
		Obj: `{keep: a, sel: {a: x}}`,
		Probes: []suProbe{
			{Name: "change sel", Spec: `{keep: a, sel: {a: x, b: w}}`},
			{Name: "apply sel.b", Apply: `{sel: {b: w}}`},
			{Name: "force-apply sel.b", Apply: `{sel: {b: w}}`, Force: true, Keeps: `{sel: {a: x}}`},
			{Name: "change keep", Spec: `{keep: a2, sel: {a: x}}`},
			{Name: "label only"},
		},
		WantKinds:    []string{".spec.sel map-type-changed"},
		WantRejected: []string{"apply sel.b", "force-apply sel.b"},
	},
	{
		// The real pair: templates/daskcluster.yaml compiled at 1.30 and
		// at 1.37, renamed into a subgroup of suGroup. Between them Kubernetes removed
		// PodResourceClaim.source (1.31, DRA's v1alpha3 rework) and added
		// fields such as PodSpec.hostnameOverride (1.34).
		Name: "dask 1.30 to 1.37", Plural: "daskclusters", Kind: "DaskCluster",
		Group: "dask130." + suGroup,
		OldCRD: func(t *testing.T, e *suEnv) *unstructured.Unstructured {
			return e.daskCRD(t, "1.30", "dask130."+suGroup)
		},
		NewCRD: func(t *testing.T, e *suEnv) *unstructured.Unstructured {
			return e.daskCRD(t, "1.37", "dask130."+suGroup)
		},
		// The example, with a resource claim in the 1.30 form.
		Spec: func(t *testing.T) map[string]any {
			spec := daskExampleSpec(t)
			sched := spec["scheduler"].(map[string]any)["spec"].(map[string]any)
			sched["resourceClaims"] = []any{map[string]any{"name": "gpu", "source": map[string]any{"resourceClaimName": "gpu-claim"}}}
			return spec
		},
		Untouched: daskExampleSpec,
		Probes: []suProbe{
			{Name: "scale workers", Edit: func(spec map[string]any) {
				spec["worker"].(map[string]any)["replicas"] = int64(3)
			}},
			{Name: "label only"},
		},
		WantKinds: []string{
			".spec.scheduler.spec.resourceClaims[*].source property-removed",
			".spec.worker.spec.resourceClaims[*].source property-removed",
			".spec.worker.spec.hostnameOverride property-added",
		},
		WantLost: true,
		CheckRead: func(t *testing.T, spec map[string]any) {
			claims, _, _ := unstructured.NestedSlice(spec, "scheduler", "spec", "resourceClaims")
			if !sameJSON(t, claims, []any{map[string]any{"name": "gpu"}}) {
				t.Errorf("scheduler resourceClaims read under 1.37: %v, want [{name: gpu}] (source pruned)", claims)
			}
		},
	},
	{
		// Between 1.29 and 1.30 the compiled PodSpec lists (containers,
		// env, volumes, hostAliases, ...) turned from atomic into map lists;
		// hostAliases is keyed on ip, which it now requires.
		Name: "dask 1.29 to 1.37", Plural: "daskclusters", Kind: "DaskCluster",
		Group: "dask129." + suGroup,
		OldCRD: func(t *testing.T, e *suEnv) *unstructured.Unstructured {
			return e.daskCRD(t, "1.29", "dask129."+suGroup)
		},
		NewCRD: func(t *testing.T, e *suEnv) *unstructured.Unstructured {
			return e.daskCRD(t, "1.37", "dask129."+suGroup)
		},
		// The example, with a host alias without ip (valid under 1.29).
		Spec: func(t *testing.T) map[string]any {
			spec := daskExampleSpec(t)
			sched := spec["scheduler"].(map[string]any)["spec"].(map[string]any)
			sched["hostAliases"] = []any{map[string]any{"hostnames": []any{"db.internal"}}}
			return spec
		},
		Untouched: daskExampleSpec,
		Probes: []suProbe{
			{Name: "scale workers", Edit: func(spec map[string]any) {
				spec["worker"].(map[string]any)["replicas"] = int64(3)
			}},
			{Name: "label only"},
		},
		WantKinds: []string{
			".spec.scheduler.spec.hostAliases list-type-changed",
			".spec.scheduler.spec.hostAliases[*].ip required-added",
			".spec.scheduler.spec.containers list-type-changed",
		},
		WantRejected: []string{"scale workers", "label only", recreate},
	},
}

// daskCRD compiles templates/daskcluster.yaml at the Kubernetes version
// (without Kubernetes' descriptions, as dist/) and renames it into group.
// It ignores the project configuration, and so templates/daskcluster.patch.yaml:
// these cases measure what Kubernetes' releases do to the compiled PodSpec
// (the patch keeps hostAliases as it was before 1.30; TestInPlaceSwitch
// shows what that fixes).
func (e *suEnv) daskCRD(t *testing.T, version, group string) *unstructured.Unstructured {
	t.Helper()
	u := compileTemplate(t, "resolve", "-r", "--no-config", "--k8s-version", version, "templates/daskcluster.yaml")
	u.SetName("daskclusters." + group)
	if err := unstructured.SetNestedField(u.Object, group, "spec", "group"); err != nil {
		t.Fatal(err)
	}
	return u
}

// daskExampleSpec is the spec of examples/daskcluster.yaml.
func daskExampleSpec(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("../examples/daskcluster.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var u map[string]any
	if err := yaml.Unmarshal(b, &u); err != nil {
		t.Fatalf("examples/daskcluster.yaml: %v", err)
	}
	return u["spec"].(map[string]any)
}

// suOutcome is what the apiserver did in one case.
type suOutcome struct {
	lost     bool
	read     map[string]any
	rejected map[string]error
}

// breaks: a stored object loses data, or an update valid under the old
// schema is refused under the new one.
func (o suOutcome) breaks() bool { return o.lost || len(o.rejected) > 0 }

// TestSchemaUpdate stores an object under an old CRD, updates the CRD to a
// new schema and checks, per change kind, that `k8s-crd-resolver diff`
// calls the change breaking exactly when the real apiserver breaks the
// stored object (the table at the top of this file).
func TestSchemaUpdate(t *testing.T) {
	e := newSUEnv(t)
	for _, c := range suCases {
		t.Run(c.Name, func(t *testing.T) {
			var old, next *unstructured.Unstructured
			if c.OldCRD != nil {
				old, next = c.OldCRD(t, e), c.NewCRD(t, e)
			} else {
				old, next = suCRD(t, c.Plural, c.Kind, c.Old), suCRD(t, c.Plural, c.Kind, c.New)
			}
			o := e.run(t, c, old, next)
			if c.WantRead != "" && !sameJSON(t, o.read["spec"], yamlMap(t, c.WantRead)) {
				t.Errorf("read under the new schema: %v, want %s", o.read["spec"], c.WantRead)
			}
			if c.CheckRead != nil {
				c.CheckRead(t, o.read["spec"].(map[string]any))
			}
			if o.lost != c.WantLost {
				t.Errorf("read under the new schema: stored data lost = %v, want %v (read %v)", o.lost, c.WantLost, o.read["spec"])
			}
			var rejected []string
			for _, p := range append(slices.Clip(c.Probes), suProbe{Name: recreate}) {
				if err, ok := o.rejected[p.Name]; ok {
					rejected = append(rejected, p.Name)
					t.Logf("%s: rejected: %v", p.Name, err)
				} else {
					t.Logf("%s: accepted", p.Name)
				}
			}
			if !slices.Equal(rejected, c.WantRejected) {
				t.Errorf("probes rejected under the new schema: %q, want %q", rejected, c.WantRejected)
			}
			e.checkDiff(t, old, next, c, o)
		})
	}
}

// checkDiff runs the diff of old and next and checks that it reports
// c.WantKinds, calls the update breaking exactly when o breaks, and marks
// breaking changes ratcheted exactly when c.Unchanged passes.
func (e *suEnv) checkDiff(t *testing.T, old, next *unstructured.Unstructured, c suCase, o suOutcome) {
	t.Helper()
	wantKinds, subset := c.WantKinds, c.OldCRD != nil
	r := e.diff(t, old, next)
	var kinds []string
	breaking := false
	for _, ch := range r.Changes {
		kinds = append(kinds, ch.Path+" "+ch.Kind)
		breaking = breaking || ch.Breaking
		if c.Unchanged != "" && ch.Breaking {
			_, refused := o.rejected[c.Unchanged]
			if ch.Ratcheted == refused {
				t.Errorf("diff: %s %s ratcheted=%v; the apiserver %s the update %q, which leaves the stored value unchanged", ch.Path, ch.Kind, ch.Ratcheted, map[bool]string{true: "refuses", false: "accepts"}[refused], c.Unchanged)
			}
		}
		if len(r.Changes) > 10 && !ch.Breaking {
			continue
		}
		t.Logf("diff: %s %s %s breaking=%v ratcheted=%v: %s", ch.Version, ch.Path, ch.Kind, ch.Breaking, ch.Ratcheted, ch.Reason)
	}
	slices.Sort(kinds)
	want := slices.Sorted(slices.Values(wantKinds))
	if subset {
		for _, w := range want {
			if !slices.Contains(kinds, w) {
				t.Errorf("diff does not report %q", w)
			}
		}
	} else if !slices.Equal(kinds, want) {
		t.Errorf("diff reports %q, want %q", kinds, want)
	}
	t.Logf("diff: %d breaking, %d compatible, %d descriptions changed", r.Breaking, r.Compatible, r.DescriptionsChanged)
	if breaking != o.breaks() {
		t.Errorf("diff calls the update breaking=%v; the apiserver: data lost on read=%v, updates refused=%v", breaking, o.lost, o.rejected)
	}
}

// run stores c.Obj under old, checks every probe is accepted there, updates
// the CRD to next, reads the object and tries every probe again.
func (e *suEnv) run(t *testing.T, c suCase, old, next *unstructured.Unstructured) suOutcome {
	t.Helper()
	group := c.Group
	if group == "" {
		group = suGroup
	}
	res := e.dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: c.Plural}).Namespace(e.ns)
	get := func(ctx context.Context) error {
		_, err := res.Get(ctx, "stored", metav1.GetOptions{})
		return err
	}
	// The object does not exist yet: a 404 still carries the marker.
	e.setCRD(t, old, func(ctx context.Context) error {
		if err := get(ctx); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	})
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": c.Kind,
		"metadata": map[string]any{"name": "stored"},
	}}
	if c.Spec != nil {
		obj.Object["spec"] = c.Spec(t)
	} else {
		obj.Object["spec"] = yamlMap(t, c.Obj)
	}
	stored, err := res.Create(t.Context(), obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating the object under the old schema: %v", err)
	}
	var untouched *unstructured.Unstructured
	if c.Untouched != nil {
		u := obj.DeepCopy()
		u.SetName("untouched")
		u.Object["spec"] = c.Untouched(t)
		if untouched, err = res.Create(t.Context(), u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating the untouched object under the old schema: %v", err)
		}
	}
	probe := func(p suProbe) error {
		u := stored.DeepCopy()
		if p.Name == recreate {
			u = &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/v1", "kind": c.Kind,
				"metadata": map[string]any{"name": "copy"},
				"spec":     stored.DeepCopy().Object["spec"],
			}}
			_, err := res.Create(t.Context(), u, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		}
		if p.Apply != "" {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/v1", "kind": c.Kind,
				"metadata": map[string]any{"name": stored.GetName()},
				"spec":     yamlMap(t, p.Apply),
			}}
			got, err := res.Apply(t.Context(), stored.GetName(), u, metav1.ApplyOptions{FieldManager: ssaManager, Force: p.Force, DryRun: []string{metav1.DryRunAll}})
			if err == nil && p.Keeps != "" && !holds(got.Object["spec"], yamlMap(t, p.Keeps)) {
				return fmt.Errorf("%w: the result %v lost %s", errDropped, got.Object["spec"], p.Keeps)
			}
			return err
		}
		switch {
		case p.Edit != nil:
			p.Edit(u.Object["spec"].(map[string]any))
		case p.Spec != "":
			u.Object["spec"] = yamlMap(t, p.Spec)
		default:
			u.SetLabels(map[string]string{"probe": "label"})
		}
		_, err := res.Update(t.Context(), u, dryRun)
		return err
	}
	probes := append(slices.Clip(c.Probes), suProbe{Name: recreate})
	for _, p := range probes {
		if err := probe(p); err != nil {
			t.Fatalf("probe %q under the old schema: %v", p.Name, err)
		}
	}
	var o suOutcome
	e.setCRD(t, next, get)
	read, err := res.Get(t.Context(), "stored", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading the object under the new schema: %v", err)
	}
	o.read = read.Object
	o.lost = !within(stored.Object["spec"], read.Object["spec"])
	if c.Spec == nil && !sameJSON(t, read.Object["spec"], stored.Object["spec"]) {
		t.Logf("read under the new schema: %v (stored: %v)", read.Object["spec"], stored.Object["spec"])
	}
	o.rejected = map[string]error{}
	for _, p := range probes {
		if err := probe(p); err != nil {
			if !apierrors.IsInvalid(err) && !apierrors.IsConflict(err) && !errors.Is(err, errDropped) {
				t.Fatalf("probe %q: %v, want accepted, invalid or (apply) conflict", p.Name, err)
			}
			o.rejected[p.Name] = err
		}
	}
	if untouched != nil {
		u, err := res.Get(t.Context(), untouched.GetName(), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !sameJSON(t, u.Object["spec"], untouched.Object["spec"]) {
			t.Errorf("the untouched object reads %v under the new schema, want it as stored", u.Object["spec"])
		}
		for _, p := range c.Probes {
			if p.Edit != nil {
				p.Edit(u.Object["spec"].(map[string]any))
			}
		}
		if _, err := res.Update(t.Context(), u, metav1.UpdateOptions{}); err != nil {
			t.Errorf("updating the untouched object under the new schema: %v", err)
		}
	}
	if c.Storage {
		e.storage(t, res, old, next, stored)
	}
	return o
}

// storage shows where the data of a removed property goes: the CRD back
// at old, a read returns it (the apiserver prunes on read, storage keeps
// it); once the object is written under next, it is gone for good.
func (e *suEnv) storage(t *testing.T, res resource, old, next, stored *unstructured.Unstructured) {
	t.Helper()
	get := func(ctx context.Context) error {
		_, err := res.Get(ctx, stored.GetName(), metav1.GetOptions{})
		return err
	}
	e.setCRD(t, old, get)
	back, err := res.Get(t.Context(), stored.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, back.Object["spec"], stored.Object["spec"]) {
		t.Errorf("CRD back at the old schema before any write: spec %v, want the stored %v (storage kept it)", back.Object["spec"], stored.Object["spec"])
	}
	e.setCRD(t, next, get)
	cur, err := res.Get(t.Context(), stored.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.SetLabels(map[string]string{"written": "new"})
	written, err := res.Update(t.Context(), cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update under the new schema: %v", err)
	}
	e.setCRD(t, old, get)
	after, err := res.Get(t.Context(), stored.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, after.Object["spec"], written.Object["spec"]) || sameJSON(t, after.Object["spec"], stored.Object["spec"]) {
		t.Errorf("CRD back at the old schema after a write under the new: spec %v, want %v (pruned in storage)", after.Object["spec"], written.Object["spec"])
	}
	t.Logf("storage: before a write under the new schema the old CRD reads %v again; after one, %v", back.Object["spec"], after.Object["spec"])
}

func yamlMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return m
}

// sameJSON: a and b encode to the same JSON (numbers decoded from YAML
// are float64, from the apiserver int64).
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}

// within: every value in a is in b, at the same place (b may hold more
// object fields; list lengths are equal).
func within(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range a {
			if bv, ok := bm[k]; !ok || !within(v, bv) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return false
		}
		for i := range a {
			if !within(a[i], bl[i]) {
				return false
			}
		}
		return true
	default:
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		return bytes.Equal(ja, jb)
	}
}

// holds: b's values are in a, b's list items each matching some item of
// a's list (a server-side apply may add items around them).
func holds(a, b any) bool {
	switch b := b.(type) {
	case map[string]any:
		am, ok := a.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range b {
			if av, ok := am[k]; !ok || !holds(av, v) {
				return false
			}
		}
		return true
	case []any:
		al, ok := a.([]any)
		if !ok {
			return false
		}
		for _, v := range b {
			if !slices.ContainsFunc(al, func(av any) bool { return holds(av, v) }) {
				return false
			}
		}
		return true
	default:
		return within(b, a)
	}
}
