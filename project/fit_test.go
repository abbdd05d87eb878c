package project

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFitDescriptionsConfig: fitDescriptions takes client-side-apply,
// helm or a size, at the top level and per set; the nearer of it and
// removeDescriptions wins, both at one level is an error.
func TestFitDescriptionsConfig(t *testing.T) {
	for src, want := range map[string]int64{
		"fitDescriptions: client-side-apply\n": WarnSize,
		"fitDescriptions: helm\n":              HelmShare,
		"fitDescriptions: 200KiB\n":            200 << 10,
		"fitDescriptions: 300000\n":            300_000,
	} {
		c, err := ParseConfig("c.yaml", []byte(src))
		require.NoError(t, err, src)
		require.Equal(t, want, int64(c.Policy.options("/").FitDescriptions), src)
	}
	require.Equal(t, int64(262_078), int64(WarnSize), "client-side-apply is the size docs/validation.md derives")
	for src, msg := range map[string]string{
		"fitDescriptions: clientside\n":                                             `fitDescriptions "clientside": want client-side-apply, helm or a size`,
		"fitDescriptions: [helm]\n":                                                 `c.yaml:1: fitDescriptions: want a string or a number`,
		"fitDescriptions: helm\nremoveDescriptions: true\n":                         `exclude each other`,
		"fit-descriptions: helm\n":                                                  `did you mean fitDescriptions?`,
		"sets:\n- templates: [t/*.yaml]\n  outputs: [dist]\n  fitDescriptions: 0\n": `sets[0]: fitDescriptions "0"`,
	} {
		_, err := ParseConfig("c.yaml", []byte(src))
		require.ErrorIs(t, err, ErrConfig, src)
		require.Contains(t, err.Error(), msg, src)
	}
	yes := true
	top := Policy{FitDescriptions: "helm"}
	require.Equal(t, Policy{RemoveDescriptions: &yes}, top.over(Policy{RemoveDescriptions: &yes}), "a set's removeDescriptions wins over the top level's fitDescriptions")
	require.Equal(t, Policy{FitDescriptions: "helm"}, Policy{RemoveDescriptions: &yes}.over(top), "a set's fitDescriptions wins over the top level's removeDescriptions")
}

// TestFitDescriptionsBuild: a project compiles with the descriptions that
// fit, says what it kept, and a CRD too large without any is the size
// guard's error.
func TestFitDescriptionsBuild(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, ".git/HEAD", "")
	write(t, dir, "templates/a.yaml", template("as", "io.k8s.api.core.v1.PodSpec"))
	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.37\"\nfitDescriptions: 100KiB\n")
	p, err := Open(dir, Options{})
	require.NoError(t, err)
	outs, err := p.Compile(nil)
	require.NoError(t, err)
	o := outs[0]
	require.LessOrEqual(t, o.JSONSizes[0], int64(100<<10))
	fit := o.Descriptions[0]
	require.True(t, fit.Fits)
	require.Greater(t, fit.Kept, 0)
	require.Less(t, fit.Kept, fit.Total)
	require.Equal(t, "descriptions: "+commas(fit.Kept)+" of "+commas(fit.Total)+" kept, to depth "+strconv.Itoa(fit.Depth)+", fits 102,400 bytes (100.0 KiB)", DescribeFit(fit, o.FitLimit))

	write(t, dir, ".crd-resolver.yaml", "kubernetesVersion: \"1.37\"\nfitDescriptions: 50KiB\n")
	p, err = Open(dir, Options{})
	require.NoError(t, err)
	_, err = p.Compile(nil)
	require.True(t, errors.Is(err, ErrTooLarge), "%v", err)
	require.Contains(t, err.Error(), "templates/a.yaml: compiled CRD too large: CRD as.example.com is ")
	require.Contains(t, err.Error(), "of compact JSON without any of Kubernetes' descriptions, more than the 51,200 bytes (50.0 KiB) fitDescriptions \"50KiB\" allows")
	require.False(t, strings.Contains(err.Error(), "project."))
}
