package builtins

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// validDeployment is a valid Deployment, as JSON, with edit applied to it
// (a map of the object, changed in place).
func validDeployment(t *testing.T, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	src := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
	  "spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},
	  "template":{"metadata":{"labels":{"app":"web"}},
	  "spec":{"containers":[{"name":"web","image":"nginx","ports":[{"containerPort":80}],
	  "resources":{"limits":{"cpu":"500m"}}}]}}}}`
	if err := json.Unmarshal([]byte(src), &m); err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(m)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// container is the Deployment's first container.
func container(m map[string]any) map[string]any {
	return dig(m, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
}

func dig(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		v = v.(map[string]any)[k]
	}
	return v
}

// TestJudge judges one object of each family of the apiserver's
// hand-written rules issue 47 names, and what it only warns about.
func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name   string
		object []byte
		// reason is the refusal's reason, "" for valid; field a cause's
		// field it must name; warning a text a warning must contain; message
		// a text the message must contain.
		reason, field, warning, message string
	}{
		{name: "valid deployment", object: validDeployment(t, nil)},
		{name: "imagePullPolicy Sometimes", reason: "Invalid", field: "spec.template.spec.containers[0].imagePullPolicy",
			object: validDeployment(t, func(m map[string]any) { container(m)["imagePullPolicy"] = "Sometimes" })},
		{name: "selector does not match the template's labels", reason: "Invalid", field: "spec.template.metadata.labels",
			object: validDeployment(t, func(m map[string]any) {
				dig(m, "spec", "template", "metadata").(map[string]any)["labels"] = map[string]any{"app": "api"}
			})},
		{name: "negative replicas", reason: "Invalid", field: "spec.replicas",
			object: validDeployment(t, func(m map[string]any) { m["spec"].(map[string]any)["replicas"] = -1 })},
		{name: "container port out of range", reason: "Invalid", field: "spec.template.spec.containers[0].ports[0].containerPort",
			object: validDeployment(t, func(m map[string]any) { container(m)["ports"] = []any{map[string]any{"containerPort": 70000}} })},
		// The apiserver's decoder names no field here, only the pattern.
		{name: "quantity", reason: "BadRequest", message: "quantities must match",
			object: validDeployment(t, func(m map[string]any) {
				container(m)["resources"] = map[string]any{"limits": map[string]any{"cpu": "half"}}
			})},
		{name: "duplicate env names warn", warning: `"A"`,
			object: validDeployment(t, func(m map[string]any) {
				container(m)["env"] = []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "A", "value": "2"}}
			})},
		{name: "unknown field", reason: "BadRequest", field: "spec.template.spec.containers[0].imagePullPolicyy",
			object: validDeployment(t, func(m map[string]any) { container(m)["imagePullPolicyy"] = "Always" })},
		{name: "service port out of range", reason: "Invalid", field: "spec.ports[0].port",
			object: []byte(`{"apiVersion":"v1","kind":"Service","metadata":{"name":"s"},"spec":{"selector":{"a":"b"},"ports":[{"port":70000}]}}`)},
		{name: "job restartPolicy Always", reason: "Invalid", field: "spec.template.spec.restartPolicy",
			object: []byte(`{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"restartPolicy":"Always","containers":[{"name":"c","image":"busybox"}]}}}}`)},
		{name: "cron schedule", reason: "Invalid", field: "spec.schedule",
			object: []byte(`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"c"},"spec":{"schedule":"every minute","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"busybox"}]}}}}}}`)},
		{name: "namespace name is a DNS label", reason: "Invalid", field: "metadata.name",
			object: []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"` + strings.Repeat("n", 64) + `"}}`)},
		{name: "valid configmap in its own namespace", object: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"team-a"},"data":{"k":"v"}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Judge(tc.object)
			if !got.Served {
				t.Fatalf("not served: %+v", got)
			}
			if got.Valid != (tc.reason == "") || got.Reason != tc.reason {
				t.Fatalf("valid=%v reason=%q, want reason %q: %s %+v", got.Valid, got.Reason, tc.reason, got.Message, got.Causes)
			}
			if tc.field != "" && !slices.ContainsFunc(got.Causes, func(c Cause) bool { return c.Field == tc.field }) {
				t.Errorf("no cause at %s: %+v", tc.field, got.Causes)
			}
			if !strings.Contains(got.Message, tc.message) {
				t.Errorf("message %q, want it to contain %q", got.Message, tc.message)
			}
			if tc.warning != "" && !slices.ContainsFunc(got.Warnings, func(w string) bool { return strings.Contains(w, tc.warning) }) {
				t.Errorf("no warning containing %s: %q", tc.warning, got.Warnings)
			}
		})
	}
}

// TestJudgeNotServed: a kind outside the table, or a version the scheme
// does not know, is no verdict (validate judges it by its schema).
func TestJudgeNotServed(t *testing.T) {
	for _, obj := range []string{
		`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"}}`,
		`{"apiVersion":"apps/v9","kind":"Deployment","metadata":{"name":"w"}}`,
		`{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"w"}}`,
	} {
		if got := Judge([]byte(obj)); got.Served || got.Valid {
			t.Errorf("%s: %+v, want not served", obj, got)
		}
	}
}

// TestEveryKindIsJudged: every kind of the table, at the version the
// apiserver prefers for its group, gets a verdict of its own code, never
// "not served" nor an internal error (a strategy that wants what the
// request context here does not give).
func TestEveryKindIsJudged(t *testing.T) {
	for gk, entry := range kinds {
		versions := legacyscheme.Scheme.PrioritizedVersionsForGroup(gk.Group)
		if len(versions) == 0 {
			t.Errorf("%s: the scheme has no version of group %q", gk, gk.Group)
			continue
		}
		gvk := versions[0].WithKind(gk.Kind)
		obj := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"x"}}`, gvk.GroupVersion().String(), gvk.Kind)
		got := Judge([]byte(obj))
		if !got.Served || got.Reason == "InternalError" || got.Reason == "BadRequest" {
			t.Errorf("%s (%s): %+v", gvk, entry.resource, got)
		}
	}
}
