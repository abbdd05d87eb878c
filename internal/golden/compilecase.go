package golden

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// CompileCase is testdata/compile/<case>/case.yaml: the options a golden
// compile case compiles with (resolver's golden test, and the per-minor
// verdict over every case). Sizes are as written (64Ki), for
// docread.ParseSize.
type CompileCase struct {
	K8sVersion           string `json:"k8sVersion"`
	RemoveDescriptions   bool   `json:"removeDescriptions"`
	MaxDescriptionLength int    `json:"maxDescriptionLength"`
	Recursion            string `json:"recursion"`
	Patch                string `json:"patch"`
	Root                 string `json:"root"`
	AllowOutsideRoot     bool   `json:"allowOutsideRoot"`
	Template             string `json:"template"`
	Budget               string `json:"budget"`          // Options.Budget, e.g. 64Ki
	FitDescriptions      string `json:"fitDescriptions"` // Options.FitDescriptions, e.g. 3000
}

// ReadCompileCase reads dir's case.yaml, strictly; without one a case
// compiles template.yaml for Kubernetes 1.30 (pinned, so adding a newer
// bundle does not rewrite every golden file).
func ReadCompileCase(dir string) (CompileCase, error) {
	c := CompileCase{K8sVersion: "1.30", Template: "template.yaml"}
	raw, err := os.ReadFile(filepath.Join(dir, "case.yaml"))
	if os.IsNotExist(err) {
		return c, nil
	}
	if err != nil {
		return c, err
	}
	return c, yaml.UnmarshalStrict(raw, &c)
}
