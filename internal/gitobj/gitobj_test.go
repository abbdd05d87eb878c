package gitobj

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/fileio"
)

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
}

// TestReadCommit reads a commit of a real repository built here: the tree (a symbolic
// link is listed with its mode, not Regular), blobs streamed in order and read through
// fileio's size limit (a blob over it is refused as a file over it is), the work tree's
// files (untracked ones included, ignored ones not), and a revision the repository lacks.
func TestReadCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "dist"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dist/a.yaml"), []byte("small\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dist/big.yaml"), []byte(strings.Repeat("x", 100)), 0o644))
	require.NoError(t, os.Symlink("/etc/passwd", filepath.Join(dir, "dist/link.yaml")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("ignored.yaml\n"), 0o644))
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "one")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dist/new.yaml"), []byte("new\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dist/ignored.yaml"), []byte("no\n"), 0o644))

	ctx := t.Context()
	repo, err := Open(ctx, filepath.Join(dir, "dist"))
	require.NoError(t, err)
	commit, err := repo.Commit(ctx, "main")
	require.NoError(t, err)
	entries, err := repo.Tree(ctx, commit, true, "dist")
	require.NoError(t, err)
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path)
		require.Equal(t, e.Path != "dist/link.yaml", e.Regular(), e.Path)
	}
	require.Equal(t, []string{"dist/a.yaml", "dist/big.yaml", "dist/link.yaml"}, paths)

	reader := fileio.NewReader(dir, false, 10)
	var got []string
	err = repo.Blobs(ctx, []string{entries[0].OID, entries[0].OID}, func(i int, size int64, rd io.Reader) error {
		require.Equal(t, int64(6), size)
		b, err := reader.ReadFrom("main:"+entries[0].Path, rd)
		got = append(got, string(b))
		return err
	})
	require.NoError(t, err)
	require.Equal(t, []string{"small\n", "small\n"}, got)
	err = repo.Blobs(ctx, []string{entries[0].OID, entries[1].OID, entries[0].OID}, func(i int, _ int64, rd io.Reader) error {
		_, err := reader.ReadFrom("main:"+entries[i].Path, rd)
		return err
	})
	require.True(t, errors.Is(err, fileio.ErrTooLarge), "%v", err)
	require.ErrorContains(t, err, "main:dist/big.yaml is larger than the")

	files, err := repo.Files(ctx, "dist")
	require.NoError(t, err)
	require.Equal(t, []string{"dist/a.yaml", "dist/big.yaml", "dist/link.yaml", "dist/new.yaml"}, files)

	_, err = repo.Commit(ctx, "nope")
	require.True(t, errors.Is(err, ErrNoCommit), "%v", err)
	_, err = repo.Commit(ctx, "--output=/tmp/x")
	require.True(t, errors.Is(err, ErrNoCommit), "%v", err)
	_, err = Open(ctx, t.TempDir())
	require.ErrorContains(t, err, "is in no git work tree")
}
