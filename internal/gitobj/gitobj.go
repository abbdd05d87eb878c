// Package gitobj reads files as a commit holds them, from git's object store: no checkout,
// no network, nothing written. It runs the real git as a subprocess (ls-tree, cat-file
// --batch, ls-files) in the repository's top level, so it works in any clone git itself
// can read, a shallow one included, as long as the commit is there.
//
// # What is trusted
//
// The revision is the invoking user's (a command-line argument); the content of the
// commit is not: a blob's bytes are handed to the caller as a stream bounded by the size
// git announces, for the caller to read through the same door (size limit, decoding) as a
// file. Names come back as git stores them (slash-separated, relative to the top level);
// entries that are not regular files (symbolic links, submodules) are reported with their
// mode, never followed.
package gitobj

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"slices"
	"strconv"
	"strings"
)

// ErrNoCommit marks a revision the repository does not have (a typo, or a shallow clone
// that never fetched it).
var ErrNoCommit = errors.New("no such commit in this repository")

// Repo is a git work tree, by its top level.
type Repo struct {
	// Top is the absolute path of the work tree's top level: git runs there.
	Top string
}

// Open returns the repository whose work tree holds dir (git rev-parse --show-toplevel).
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := run(ctx, dir, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is in no git work tree: %w", dir, err)
	}
	return &Repo{Top: strings.TrimSuffix(string(out), "\n")}, nil
}

// Commit returns the commit id rev names (anything git rev-parse takes: a branch, a tag,
// origin/main, HEAD~1, an id). A revision the repository lacks is ErrNoCommit.
func (r *Repo) Commit(ctx context.Context, rev string) (string, error) {
	out, err := run(ctx, r.Top, nil, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("%q: %w (in a shallow clone, fetch it first: git fetch --depth=1 origin BRANCH)", rev, ErrNoCommit)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// Entry is one entry of a tree, as git ls-tree prints it.
type Entry struct {
	// Mode is git's mode: "100644" or "100755" for a regular file, "120000" a symbolic
	// link, "160000" a submodule, "040000" a directory.
	Mode string
	// Type is "blob", "tree" or "commit".
	Type string
	// OID is the object id.
	OID string
	// Path is slash-separated, relative to the top level.
	Path string
}

// Regular reports whether the entry is a regular file (not a symbolic link, submodule or
// directory).
func (e Entry) Regular() bool { return e.Type == "blob" && (e.Mode == "100644" || e.Mode == "100755") }

// Tree lists the entries of commit (an id, as Commit returns it) below each of paths (slash-separated, relative to the
// top level; none: the whole tree), every level deep when recursive, else the entries of
// the directories paths name (a path ending in "/") or the entries paths name. Sorted as
// git sorts them.
func (r *Repo) Tree(ctx context.Context, commit string, recursive bool, paths ...string) ([]Entry, error) {
	args := []string{"ls-tree", "-z", "--full-tree"}
	if recursive {
		args = append(args, "-r")
	}
	args = append(args, commit, "--") // commit is an id (Commit): no option
	args = append(args, paths...)
	out, err := run(ctx, r.Top, nil, args...)
	if err != nil {
		return nil, err
	}
	var entries []Entry
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		f := strings.Fields(string(meta))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git ls-tree: unexpected line %q", rec)
		}
		entries = append(entries, Entry{Mode: f[0], Type: f[1], OID: f[2], Path: string(name)})
	}
	return entries, nil
}

// Files lists the files of the work tree below each of paths (relative to the top level)
// that a commit would hold: those in the index and those not ignored (git ls-files
// --cached --others --exclude-standard), sorted. A file deleted but not yet staged is
// listed.
func (r *Repo) Files(ctx context.Context, paths ...string) ([]string, error) {
	args := append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--full-name", "--"}, paths...)
	out, err := run(ctx, r.Top, nil, args...)
	if err != nil {
		return nil, err
	}
	var names []string
	seen := map[string]bool{} // an unmerged file is listed once per stage
	for rec := range bytes.SplitSeq(out, []byte{0}) {
		if n := string(rec); n != "" && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Blobs streams the content of each object of oids, in order, to read: size is what git
// announces, rd yields at most that many bytes (whatever read leaves unread is skipped).
// An error from read stops the stream and is returned.
func (r *Repo) Blobs(ctx context.Context, oids []string, read func(i int, size int64, rd io.Reader) error) (err error) {
	if len(oids) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = r.Top
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("running git: %w", err)
	}
	go func() {
		w := bufio.NewWriter(stdin)
		for _, o := range oids {
			if _, err := fmt.Fprintln(w, o); err != nil {
				break
			}
		}
		w.Flush()
		stdin.Close()
	}()
	var readErr error // the caller's, returned as it is
	defer func() {
		if err == nil {
			if werr := cmd.Wait(); werr != nil {
				err = gitError("cat-file", werr, stderr.Bytes())
			}
			return
		}
		cancel() // a refused blob stops git, whatever it still had to send
		cmd.Wait()
		if readErr == nil {
			if msg := gitError("cat-file", nil, stderr.Bytes()); msg != nil {
				err = fmt.Errorf("%w (%w)", err, msg)
			}
		}
	}()
	br := bufio.NewReader(stdout)
	for i, o := range oids {
		head, err := br.ReadString('\n')
		if err != nil {
			return fmt.Errorf("git cat-file: %s: %w", o, err)
		}
		f := strings.Fields(head)
		if len(f) == 2 && f[1] == "missing" {
			return fmt.Errorf("git cat-file: object %s is missing (a shallow or partial clone?)", o)
		}
		if len(f) != 3 {
			return fmt.Errorf("git cat-file: unexpected header %q", head)
		}
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: unexpected header %q", head)
		}
		body := io.LimitReader(br, size)
		if err := read(i, size, body); err != nil {
			readErr = err
			return err
		}
		if _, err := io.Copy(io.Discard, body); err != nil {
			return fmt.Errorf("git cat-file: %s: %w", o, err)
		}
		if nl, err := br.ReadByte(); err != nil || nl != '\n' {
			return fmt.Errorf("git cat-file: %s: the object does not end where its size says", o)
		}
	}
	return nil
}

// Join names a path below the top level from one relative to dir (both slash-separated
// and relative to the top level).
func Join(dir, name string) string {
	if dir == "" || dir == "." {
		return path.Clean(name)
	}
	return path.Join(dir, name)
}

func run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, gitError(args[0], err, stderr.Bytes())
	}
	return out, nil
}

func gitError(sub string, err error, stderr []byte) error {
	msg := strings.TrimSpace(string(stderr))
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	switch {
	case err == nil && msg == "":
		return nil
	case err == nil:
		return fmt.Errorf("git %s: %s", sub, msg)
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("running git: %w (--base and REF:PATH read git's object store with the git command)", err)
	case msg == "":
		return fmt.Errorf("git %s: %w", sub, err)
	}
	return fmt.Errorf("git %s: %s", sub, msg)
}
