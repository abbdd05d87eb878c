package schemadiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/docread"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/oracle"
)

// TestCRDUpdateRefusals holds the reasons that say "the apiserver refuses the update" to the
// apiserver's own update validation (ValidateCustomResourceDefinitionUpdate, what
// kube-apiserver runs on every CRD update), for every golden case: the old CRD established
// (as a CRD in use is) with its storage versions stored, the new one given the same status
// plus its storage version (as the apiserver's update strategy adds it).
// A case the apiserver refuses has such a change, and a case with such a change is refused
// on the field it names.
func TestCRDUpdateRefusals(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(caseDir, "*"))
	require.NoError(t, err)
	checked := 0
	for _, dir := range dirs {
		old, new := firstCRD(t, filepath.Join(dir, "old.yaml")), firstCRD(t, filepath.Join(dir, "new.yaml"))
		if old == nil || new == nil || old.Name != new.Name {
			continue
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			if len(old.Status.StoredVersions) == 0 {
				for _, v := range old.Spec.Versions {
					if v.Storage {
						old.Status.StoredVersions = append(old.Status.StoredVersions, v.Name)
					}
				}
			}
			old.Status.Conditions = []apiextensions.CustomResourceDefinitionCondition{{Type: apiextensions.Established, Status: apiextensions.ConditionTrue}}
			new.Status = *old.Status.DeepCopy()
			// As the apiserver's update strategy does: the new storage version is stored too.
			for _, v := range new.Spec.Versions {
				if v.Storage && !slices.Contains(new.Status.StoredVersions, v.Name) {
					new.Status.StoredVersions = append(new.Status.StoredVersions, v.Name)
				}
			}
			new.ResourceVersion, old.ResourceVersion = "1", "1"
			var refused []string
			for _, e := range apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate(t.Context(), new, old) {
				if strings.Contains(e.Error(), "field is immutable") || strings.HasPrefix(e.Field, "status.storedVersions") {
					refused = append(refused, e.Field)
				}
			}
			oc, err := Parse("old", mustRead(t, filepath.Join(dir, "old.yaml")), 0)
			require.NoError(t, err)
			nc, err := Parse("new", mustRead(t, filepath.Join(dir, "new.yaml")), 0)
			require.NoError(t, err)
			var ours []string
			for _, c := range Compare(oc, nc).Changes {
				if strings.Contains(c.Reason, "the apiserver refuses the update") {
					require.True(t, c.Breaking)
					ours = append(ours, c.Field)
				}
			}
			require.Equal(t, len(refused) > 0, len(ours) > 0, "apiserver refuses %v, we say %v", refused, ours)
			for _, f := range ours {
				if f == "" { // a removed stored version
					require.True(t, slices.ContainsFunc(refused, func(r string) bool { return strings.HasPrefix(r, "status.storedVersions") }), "%v", refused)
					continue
				}
				require.Contains(t, refused, f)
			}
			checked++
		})
	}
	require.Positive(t, checked)
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// firstCRD decodes the first CRD of a file as the apiserver does (nil when it has none or
// it does not decode).
func firstCRD(t *testing.T, path string) *apiextensions.CustomResourceDefinition {
	docs, err := docread.Decode(path, mustRead(t, path), 0)
	if err != nil {
		return nil
	}
	for _, d := range docs {
		if m, ok := d.(map[string]any); ok && m["kind"] == "CustomResourceDefinition" {
			raw, err := json.Marshal(m)
			require.NoError(t, err)
			c, err := oracle.DecodeJSON(raw)
			if err != nil {
				return nil
			}
			return c.Internal
		}
	}
	return nil
}
