package crdvalidate

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/project"
)

// kubectlValidateDir holds kubectl-validate's test cases at a pinned
// commit (hack/fetch-kubectl-validate-testcases.sh, README.md there).
const kubectlValidateDir = "../../testdata/kubectl-validate"

// kubectlValidateFiles is how many of its manifest files carry the real
// apiserver's Status on every document (the measure: 31 enabled, and
// error_missing_image_deployment.yaml.disabled).
const kubectlValidateFiles = 32

// kubectlValidateDisagree are the files of kubectl-validate's suite on
// which validate does not give the apiserver's verdict and cause fields,
// and why. The suite fails when a file disagrees that is not listed (N
// dropped) and when a listed one agrees (raise N: remove it here).
var kubectlValidateDisagree = map[string]string{
	"error_enum_invalid.yaml":                      "protocol: udp: the enum of ContainerPort.protocol is in the OpenAPI v3 documents only, not the v2 definitions the bundles embed",
	"error_missing_image.yaml":                     "a container's image is required by the apiserver's hand-written validation (issue 47 item 2), not by the OpenAPI schema",
	"error_missing_image_deployment.yaml.disabled": "a container's image is required by the apiserver's hand-written validation (issue 47 item 2), not by the OpenAPI schema",
	"error_x_list_map_duplicate_key.yaml":          "its Status (\"Pod.core\", kubectl-validate's own wording, not the apiserver's) refuses duplicate container ports; kube-apiserver 1.37.2 accepts them (testdata/apiserver-recorded/pod-duplicate-port.yaml, deployment-duplicate-port.yaml), and validate warns (duplicates.go)",
}

// kubectlValidateDisagreeHandWritten are the files on which validate with
// k8s-crd-resolver-builtins does not give the apiserver's verdict and
// cause fields, and why.
// Both are Statuses kube-apiserver 1.37.2 does not give (recorded in
// testdata/apiserver-recorded, whose suite agrees on them with the binary).
var kubectlValidateDisagreeHandWritten = map[string]string{
	"configmap.yaml":                      "its Status says Success; kube-apiserver 1.37.2 refuses the finalizer finalizers.compute.linkedin.com (no slash, not a standard name: testdata/apiserver-recorded/configmap-finalizer-unqualified.yaml), and so does the binary",
	"error_x_list_map_duplicate_key.yaml": "its Status (\"Pod.core\", kubectl-validate's own wording, not the apiserver's) refuses duplicate container ports; kube-apiserver 1.37.2 accepts them (testdata/apiserver-recorded/pod-duplicate-port.yaml, deployment-duplicate-port.yaml), and so does the binary",
}

// kvDoc is one document of a kubectl-validate manifest: its lines in the
// file (from 1) and the Status the apiserver gave it.
type kvDoc struct {
	first, last int
	status      struct {
		Status  string `json:"status"`
		Details struct {
			Causes []struct {
				Field string `json:"field"`
			} `json:"causes"`
		} `json:"details"`
	}
}

// kvDocuments splits a manifest at its --- lines and reads each
// document's leading comment as the apiserver's Status; a document with
// no object expects Success. ok is false when a comment is no Status.
func kvDocuments(content string) (docs []kvDoc, ok bool) {
	lines := strings.Split(content, "\n")
	start := 0
	flush := func(end int) bool {
		d := kvDoc{first: start + 1, last: end}
		// As kubectl-validate reads it: the first run of comment lines,
		// after blank ones, is the Status.
		var comment strings.Builder
		body, inComment, done := false, false, false
		for _, l := range lines[start:end] {
			t := strings.TrimSpace(l)
			switch {
			case done || body:
			case !inComment && t == "":
			case strings.HasPrefix(l, "#"):
				inComment = true
				comment.WriteString(l[1:] + "\n")
			default:
				done = inComment
			}
			if t != "" && !strings.HasPrefix(t, "#") {
				body = true
			}
		}
		if !body {
			d.status.Status = "Success"
		} else if json.Unmarshal([]byte(comment.String()), &d.status) != nil {
			return false
		}
		docs = append(docs, d)
		return true
	}
	for i, l := range lines {
		if strings.HasPrefix(l, "---") {
			if !flush(i) {
				return nil, false
			}
			start = i + 1
		}
	}
	if !flush(len(lines)) {
		return nil, false
	}
	return docs, true
}

// kvAgrees compares what validate found in a file with the Status of each
// document: the same verdict, and each cause field the apiserver names
// among the fields of validate's problems in that document (validate may
// name more: it lists every problem, as the apiserver's 422 does, where
// kubectl-validate's Status may keep the first).
func kvAgrees(t *testing.T, docs []kvDoc, res project.ValidationResult) bool {
	agree := true
	for i, d := range docs {
		var fields []string
		invalid := false
		for _, p := range res.Problems {
			inDoc := p.Line >= d.first && p.Line <= d.last || p.Line == 0 && len(docs) == 1
			if inDoc {
				invalid = true
				fields = append(fields, p.Field, p.Message)
			}
		}
		wantInvalid := d.status.Status != "Success"
		if invalid != wantInvalid {
			t.Logf("document %d: invalid %v, the apiserver says %s: %v", i+1, invalid, d.status.Status, res.Problems)
			agree = false
			continue
		}
		for _, c := range d.status.Details.Causes {
			if c.Field == "" || c.Field == "<nil>" {
				continue
			}
			if !slices.ContainsFunc(fields, func(f string) bool { return f == c.Field || strings.HasPrefix(f, c.Field+": ") }) {
				t.Logf("document %d: no problem at %s: %v", i+1, c.Field, res.Problems)
				agree = false
			}
		}
	}
	return agree
}

// TestKubectlValidateSuite runs validate on each manifest of
// kubectl-validate's suite, with its CRDs, for the newest embedded minor,
// and compares verdicts and cause fields with the real apiserver's: with
// built-in objects judged by their schema alone, then with
// k8s-crd-resolver-builtins (builtinsForTest).
func TestKubectlValidateSuite(t *testing.T) {
	t.Run("schema", func(t *testing.T) { kubectlValidateSuite(t, Options{}, kubectlValidateDisagree) })
	t.Run("hand-written", func(t *testing.T) {
		h := builtinsForTest(t)
		defer h.Close()
		kubectlValidateSuite(t, Options{HandWritten: h}, kubectlValidateDisagreeHandWritten)
	})
}

func kubectlValidateSuite(t *testing.T, opts Options, disagree map[string]string) {
	files, err := filepath.Glob(kubectlValidateDir + "/manifests/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests (run hack/fetch-kubectl-validate-testcases.sh): %v", err)
	}
	crdFiles, err := filepath.Glob(kubectlValidateDir + "/crds/*.yaml")
	if err != nil || len(crdFiles) == 0 {
		t.Fatalf("no CRDs: %v", err)
	}
	var crds []Input
	for _, f := range crdFiles {
		crds = append(crds, Input{Name: f, Content: readTestFile(t, f)})
	}
	measured, agreed := 0, 0
	for _, f := range files {
		name := filepath.Base(f)
		content := readTestFile(t, f)
		docs, ok := kvDocuments(string(content))
		if !ok {
			continue // no Status to compare with (error_api_deprecation.yaml.disabled)
		}
		measured++
		t.Run(name, func(t *testing.T) {
			res, _, err := Files(t.Context(), []Input{{Name: name, Content: content}}, Options{CRDs: crds, HandWritten: opts.HandWritten})
			if err != nil {
				t.Fatal(err)
			}
			agree := kvAgrees(t, docs, res[0])
			why, listed := disagree[name]
			switch {
			case agree:
				agreed++
				if listed {
					t.Errorf("agrees with the apiserver now: remove it from the list of disagreements (%s)", why)
				}
			case !listed:
				t.Errorf("disagrees with the apiserver (see the log above): N dropped")
			}
		})
	}
	if measured != kubectlValidateFiles {
		t.Errorf("%d manifests carry a Status, want %d: was the suite refetched?", measured, kubectlValidateFiles)
	}
	t.Logf("kubectl-validate's suite: %d/%d files agree with the apiserver", agreed, measured)
	if want := kubectlValidateFiles - len(disagree); agreed < want {
		t.Errorf("%d/%d files agree, want at least %d", agreed, measured, want)
	}
}
