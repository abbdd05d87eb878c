package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// olderAssetsEnv lists (space-separated) the KUBEBUILDER_ASSETS-like
// directories of older kube-apiservers (etcd and kube-apiserver each) that
// TestMinorVerdictsAgreeWithRealAPIServers judges against; `make
// test-older-minors` sets it from OLDER_KUBE_VERSIONS, whose control planes
// hack/control-plane.sh builds and caches. Unset, the test skips: it is not
// part of `make test`.
const olderAssetsEnv = "K8S_CRD_RESOLVER_OLDER_ASSETS"

// minorCase is a CRD that an older minor may refuse or store without some
// of its fields, and the verdicts that this test records as known
// disagreements with the real apiserver (by minor, "1.25"), each a finding.
type minorCase struct {
	name string
	crd  string
	// disagree: minor -> why our verdict is not the apiserver's. The test
	// fails when the recorded disagreement is gone (remove the entry) as
	// when an unrecorded one appears.
	disagree map[string]string
}

// minorCRD is crdTemplate's CRD (apiextensions.k8s.io/v1, one version v1)
// whose spec schema has the properties color and size; version adds lines
// to the version, spec to spec's schema, props to its properties (each
// indented for its place).
func minorCRD(plural, version, spec, props string) string {
	crd := crdTemplate(plural, "type: object\n"+spec+`              properties:
                color: {type: string}
                size: {type: string}
`+props)
	return strings.Replace(crd, "      storage: true\n", "      storage: true\n"+version, 1)
}

// minorCases: the fields issue 35 names, each on its own (so a refusal
// names one cause), two of them deeper in a schema, a plain CRD and one
// with 1.19's deprecation fields as controls, a CEL rule calling a
// library function, and a v1beta1 CRD.
var minorCases = []minorCase{
	{name: "plain (control)", crd: minorCRD("plains", "", "", "")},
	{name: "x-kubernetes-validations rule", crd: minorCRD("rules", "", `              x-kubernetes-validations:
                - rule: self.color != 'red'
                  message: no red
`, "")},
	{name: "messageExpression", crd: minorCRD("msgexprs", "", `              x-kubernetes-validations:
                - rule: self.color != 'red'
                  messageExpression: "'no ' + self.color"
`, "")},
	{name: "reason, fieldPath", crd: minorCRD("reasons", "", `              x-kubernetes-validations:
                - rule: self.color != 'red'
                  reason: FieldValueForbidden
                  fieldPath: .color
`, "")},
	{name: "optionalOldSelf", crd: minorCRD("oldselves", "", `              x-kubernetes-validations:
                - rule: "!oldSelf.hasValue() || self.color == oldSelf.value().color"
                  optionalOldSelf: true
`, "")},
	// The same with a rule that compiles without optionalOldSelf too, so
	// a minor that drops the field (its gate off) stores the CRD and the
	// read-back shows the drop.
	{name: "optionalOldSelf, rule compiling without it", crd: minorCRD("oldselvestwo", "", `              x-kubernetes-validations:
                - rule: "self.color != 'red' || oldSelf == oldSelf"
                  optionalOldSelf: true
`, "")},
	{name: "selectableFields", crd: minorCRD("selectables", `      selectableFields:
        - jsonPath: .spec.color
`, "", "")},
	// The same fields deeper in the schema: a list's items, a map's
	// values.
	{name: "messageExpression in items", crd: minorCRD("itemrules", "", "", `                sizes:
                  type: array
                  items:
                    type: string
                    x-kubernetes-validations:
                      - rule: self != 'huge'
                        messageExpression: "'no ' + self"
`)},
	{name: "reason in additionalProperties", crd: minorCRD("maprules", "", "", `                labels:
                  type: object
                  additionalProperties:
                    type: string
                    x-kubernetes-validations:
                      - rule: self != ''
                        reason: FieldValueInvalid
`)},
	{name: "deprecated version (1.19)", crd: minorCRD("deprecateds", `      deprecated: true
      deprecationWarning: use v2
`, "", "")},
	{name: "CEL quantity library", crd: minorCRD("quantities", "", `              x-kubernetes-validations:
                - rule: "!has(self.size) || isQuantity(self.size)"
`, "")},
	{name: "apiextensions.k8s.io/v1beta1", crd: `apiVersion: apiextensions.k8s.io/v1beta1
kind: CustomResourceDefinition
metadata:
  name: betas.example.com
spec:
  group: example.com
  names: {kind: Beta, plural: betas}
  scope: Namespaced
  version: v1
  validation:
    openAPIV3Schema:
      type: object
      properties:
        spec:
          type: object
          properties:
            color: {type: string}
`},
}

// ourVerdict is `k8s-crd-resolver validate --k8s-version M` of one CRD.
type ourVerdict struct {
	refused bool
	fields  []string // the fields M does not know or keeps gated off (sorted)
	other   []string // its other problems, as printed
}

func (v ourVerdict) String() string {
	switch {
	case !v.refused:
		return "accepts"
	case len(v.fields) > 0:
		return "refuses " + shortFields(v.fields)
	default:
		return "refuses: " + strings.Join(v.other, "; ")
	}
}

// realVerdict is what a real kube-apiserver did with one CRD: created
// with ?fieldValidation=Strict, and, when Strict refuses unknown fields,
// created again with Ignore; each created object read back.
type realVerdict struct {
	refused bool     // the Strict create failed
	unknown []string // the fields Strict named unknown (sorted)
	message string   // the Strict refusal; after unknown fields, what Ignore did
	dropped []string // fields sent but not stored (sorted)
}

// accepted: created as written, every field kept.
func (v realVerdict) accepted() bool { return !v.refused && len(v.dropped) == 0 }

// fields are the fields the apiserver refused as unknown or dropped.
func (v realVerdict) fields() []string {
	f := slices.Concat(v.unknown, v.dropped)
	slices.Sort(f)
	return slices.Compact(f)
}

func (v realVerdict) String() string {
	var parts []string
	switch {
	case len(v.unknown) > 0:
		parts = append(parts, "Strict refuses unknown "+shortFields(v.unknown))
	case v.refused:
		parts = append(parts, "refuses: "+v.message)
	default:
		parts = append(parts, "Strict accepts")
	}
	if len(v.dropped) > 0 {
		parts = append(parts, "stores it without "+shortFields(v.dropped))
	} else if len(v.unknown) > 0 {
		parts = append(parts, "Ignore: "+v.message)
	}
	return strings.Join(parts, "; ")
}

// shortFields names fields by their last segment (the table's cells).
func shortFields(fields []string) string {
	short := make([]string, len(fields))
	for i, f := range fields {
		short[i] = f[strings.LastIndexAny(f, ".]")+1:]
	}
	return strings.Join(short, ", ")
}

// TestMinorVerdictsAgreeWithRealAPIServers: for every older kube-apiserver
// in K8S_CRD_RESOLVER_OLDER_ASSETS (make test-older-minors), each CRD of
// minorCases gets our verdict for that minor (validate --k8s-version) and
// the real apiserver's (a create with fieldValidation=Strict; where Strict
// names unknown fields, a create with Ignore and a read-back show what is
// dropped; every created CRD is read back and compared with what was sent,
// which is how a gate that is off shows: the field is known, and dropped).
// They must agree: we refuse exactly when the apiserver refuses or drops,
// and name exactly the fields it refused as unknown or dropped, except for
// the disagreements minorCases records (findings). The table of verdicts
// is logged.
func TestMinorVerdictsAgreeWithRealAPIServers(t *testing.T) {
	if testing.Short() {
		t.Skip("needs older etcd and kube-apiserver builds; skipped under -short")
	}
	dirs := strings.Fields(os.Getenv(olderAssetsEnv))
	if len(dirs) == 0 {
		t.Skipf("%s is unset: `make test-older-minors` builds (once, cached) and runs the older kube-apiservers", olderAssetsEnv)
	}
	var table []string
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if err := checkAssets(dir); err != nil {
				if os.Getenv(ciEnv) != "" {
					t.Fatalf("%v (%s lists it and %s is set: make test-older-minors must run it)", err, olderAssetsEnv, ciEnv)
				}
				t.Skipf("%v; `make test-older-minors` builds it", err)
			}
			c, err := startControlPlane(dir)
			if err != nil {
				t.Fatalf("starting the control plane of %s: %v", dir, err)
			}
			t.Cleanup(c.stop)
			k := &kube{server: c.server, token: c.token, http: insecureClient()}
			minor := serverMinor(t, k)
			t.Logf("%s serves Kubernetes %s", dir, minor)
			work := t.TempDir()
			for _, tc := range minorCases {
				ours := validateForMinor(t, work, minor, tc)
				theirs := createCRD(t, k, tc.crd)
				agree := ours.refused == !theirs.accepted() &&
					(len(theirs.fields()) == 0 || slices.Equal(ours.fields, theirs.fields()))
				note, recorded := tc.disagree[minor]
				cell := "yes"
				switch {
				case !agree && !recorded:
					t.Errorf("%s, Kubernetes %s: ours %s (fields %q), the apiserver %s (fields %q)", tc.name, minor, ours, ours.fields, theirs, theirs.fields())
					cell = "NO"
				case !agree:
					t.Logf("%s, Kubernetes %s: known disagreement (%s): ours %s, the apiserver %s", tc.name, minor, note, ours, theirs)
					cell = "no (finding: " + note + ")"
				case recorded:
					t.Errorf("%s, Kubernetes %s: the recorded disagreement (%s) is gone, ours %s and the apiserver %s agree: remove it from minorCases", tc.name, minor, note, ours, theirs)
				}
				table = append(table, fmt.Sprintf("| %s | %s | %s | %s | %s |", tc.name, minor, ours, theirs, cell))
			}
		})
	}
	if len(table) == 0 {
		return
	}
	t.Logf("verdicts, ours (validate --k8s-version) and the real kube-apiserver's:\n| case | minor | ours | real apiserver | agree |\n|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// serverMinor is the apiserver's minor ("1.29") from /version.
func serverMinor(t *testing.T, k *kube) string {
	t.Helper()
	b, err := k.raw(t.Context(), http.MethodGet, "/version", nil, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ GitVersion string }
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(strings.TrimPrefix(v.GitVersion, "v"), ".", 3)
	if len(parts) < 2 {
		t.Fatalf("/version: gitVersion %q", v.GitVersion)
	}
	return parts[0] + "." + parts[1]
}

// minorLine is a line of validate's output for one CRD: "file[:l:c]:
// name: field: message".
var minorLine = regexp.MustCompile(`^[^:]+(?::\d+:\d+)?: [^:]+: ([^:]+): (.*)$`)

// validateForMinor runs validate --k8s-version minor on tc's CRD.
func validateForMinor(t *testing.T, work, minor string, tc minorCase) ourVerdict {
	t.Helper()
	file := strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "", "/", "-").Replace(tc.name) + ".yaml"
	write(t, work, file, tc.crd)
	r := cli(t, work, "validate", "--k8s-version", minor, file)
	if r.code != 0 && r.code != 1 {
		t.Fatalf("validate --k8s-version %s %s: exit %d\n%s%s", minor, file, r.code, r.stdout, r.stderr)
	}
	v := ourVerdict{refused: r.code != 0}
	for line := range strings.Lines(strings.TrimSpace(r.stdout)) {
		line = strings.TrimSpace(line)
		if m := minorLine.FindStringSubmatch(line); m != nil && strings.HasPrefix(m[2], "Kubernetes "+minor+" ") {
			v.fields = append(v.fields, m[1])
		} else if line != "" {
			v.other = append(v.other, line)
		}
	}
	if v.refused && len(v.fields)+len(v.other) == 0 {
		t.Fatalf("validate --k8s-version %s %s: exit 1 and no problem printed\n%s", minor, file, r.stderr)
	}
	slices.Sort(v.fields)
	return v
}

// unknownField is how kube-apiserver's strict decoding names a field
// (map keys in brackets: properties[spec]).
var (
	unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)
	bracketKey   = regexp.MustCompile(`\[([^\]0-9][^\]]*)\]`)
)

// createCRD creates the CRD (YAML) as realVerdict describes.
func createCRD(t *testing.T, k *kube, crd string) realVerdict {
	t.Helper()
	sent := &unstructured.Unstructured{Object: yamlMap(t, crd)}
	gv, err := schema.ParseGroupVersion(sent.GetAPIVersion())
	if err != nil {
		t.Fatal(err)
	}
	res := k.Resource(gv.WithResource("customresourcedefinitions"))
	var v realVerdict
	_, err = res.Create(t.Context(), sent, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		v.refused = true
		v.message = refusal(err)
		for _, m := range unknownField.FindAllStringSubmatch(err.Error(), -1) {
			v.unknown = append(v.unknown, bracketKey.ReplaceAllString(m[1], ".$1"))
		}
		slices.Sort(v.unknown)
		v.unknown = slices.Compact(v.unknown)
		if len(v.unknown) == 0 {
			return v
		}
		// What an apiserver without strict validation (or a client that
		// does not ask for it) keeps.
		if _, err := res.Create(t.Context(), sent, metav1.CreateOptions{FieldValidation: "Ignore"}); err != nil {
			v.message = "refuses: " + refusal(err)
			return v
		}
		v.message = "accepts"
	}
	stored, err := res.Get(t.Context(), sent.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading back %s: %v", sent.GetName(), err)
	}
	v.dropped = missing("", sent.Object, stored.Object)
	slices.Sort(v.dropped)
	return v
}

// refusal is an apiserver error as the table shows it: its first line,
// without the dump of the invalid value or CEL's generated type names.
func refusal(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	msg = invalidValue.ReplaceAllString(msg, "")
	msg = celSelfType.ReplaceAllString(msg, "selfType")
	if apierrors.IsNotFound(err) {
		return "404 " + msg
	}
	return msg
}

var (
	invalidValue = regexp.MustCompile(`Invalid value: .*?: (?:compilation failed: )?`)
	celSelfType  = regexp.MustCompile(`selfType\d+`)
)

// missing lists the fields (spec.versions[0].schema...) of sent that
// stored lacks or holds with another value (at the deepest point).
func missing(path string, sent, stored any) []string {
	switch s := sent.(type) {
	case map[string]any:
		st, ok := stored.(map[string]any)
		if !ok {
			return []string{path}
		}
		var out []string
		for key, v := range s {
			p := key
			if path != "" {
				p = path + "." + key
			}
			sv, ok := st[key]
			if !ok {
				out = append(out, p)
				continue
			}
			out = append(out, missing(p, v, sv)...)
		}
		return out
	case []any:
		st, ok := stored.([]any)
		if !ok || len(st) != len(s) {
			return []string{path}
		}
		var out []string
		for i := range s {
			out = append(out, missing(path+"["+strconv.Itoa(i)+"]", s[i], st[i])...)
		}
		return out
	default:
		a, _ := json.Marshal(sent)
		b, _ := json.Marshal(stored)
		if string(a) != string(b) {
			return []string{path}
		}
		return nil
	}
}
