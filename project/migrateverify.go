package project

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/k8s-crd-resolver/k8s-crd-resolver/internal/safetext"
	"github.com/k8s-crd-resolver/k8s-crd-resolver/schemas"
)

// What migrate checks before it writes: each pin names a definition (not a
// path), an existing configuration records the pins' minor, and the
// project it would leave compiles.

// checkPinName refuses the pin at p (pinRE's submatch indexes) in the file
// rel when what follows #/definitions/ is no definition name: a name that
// is or holds "..", or one the ref goes on after ("/", "~", "%", "#", "\"),
// as in #/definitions/../../secret.yaml. Rewritten as a bare name, such a
// pin would become a file $ref leading out of the project.
func checkPinName(rel string, data []byte, p []int) error {
	name := string(data[p[6]:p[7]])
	next := byte(0)
	if p[1] < len(data) {
		next = data[p[1]]
	}
	if !strings.HasPrefix(name, ".") && !strings.Contains(name, "..") && !strings.ContainsRune(`/~%#\`, rune(next)) {
		return nil
	}
	end := p[1]
	for end < len(data) && !strings.ContainsRune(" \t\r\n\"',}]", rune(data[end])) {
		end++
	}
	line := bytes.Count(data[:p[0]], []byte("\n")) + 1
	return fmt.Errorf("%w: %s:%d: the pinned $ref %s names no definition after #/definitions/ (a path): rewritten as a bare name it would be a file $ref, possibly leading out of the project; nothing was written: fix the $ref to name a Kubernetes definition, and run migrate again",
		ErrConfig, rel, line, safetext.Quote(string(data[p[0]:end])))
}

// compiledKey is what ties a template to a compiled CRD: the file name it
// compiles to and the CRD names it holds.
func compiledKey(file string, names []string) string {
	return file + "\x00" + strings.Join(names, "\x00")
}

// sameMinor refuses a configuration (name, c) whose kubernetesVersion is
// not the minor migrate records: once bare, the pinned refs would compile
// at the configuration's minor, not at the one they named, while migrate
// said it recorded that one (a second migrate after a template was pinned
// to a newer minor, say).
func sameMinor(name string, c *Config, minor string) error {
	if have, err := schemas.Canonical(c.Policy.KubernetesVersion); err == nil && have == minor {
		return nil
	}
	return fmt.Errorf("%w: %s sets kubernetesVersion %s, but the pins name %s: rewritten as bare names they would compile at %s, not at %s; nothing was written: set kubernetesVersion to %s in %s and run migrate again, or pass --k8s-version %s to compile them at that one",
		ErrConfig, c.line(name, "kubernetesVersion"), c.Policy.KubernetesVersion, minor, c.Policy.KubernetesVersion, minor, minor, name, c.Policy.KubernetesVersion)
}

// Verify opens the project as the migration would leave it (its
// configuration, the files its globs take with their pins rewritten) and
// compiles every template, without writing anything: migrate --write
// calls it first, so a migration after which build would fail (a glob
// taking a file no build reads, a pin naming a definition the minor does
// not have) writes nothing. Files a $ref reaches that no glob takes are
// read from the disk, pins and all (a pin resolves against its own minor's
// bundle, as the bare name does at the minor recorded).
func (m *Migration) Verify() error {
	opts := Options{ConfigFile: filepath.Join(m.Dir, ConfigFileName), overlay: map[string][]byte{}}
	for _, e := range m.Edits {
		if e.Config {
			c, err := ParseConfig(e.Name, e.New)
			if err != nil {
				return fmt.Errorf("the configuration migrate would write does not read (%w); nothing was written", err)
			}
			opts.ConfigFile, opts.config = e.Path, c
			continue
		}
		opts.overlay[e.Path] = e.New
	}
	p, err := Open(m.Dir, opts)
	if err != nil {
		return fmt.Errorf("%w\nthe project migrate would leave does not open: nothing was written", err)
	}
	if _, err := p.Compile(nil); err != nil {
		return fmt.Errorf("%w\nbuild would fail after the migration: nothing was written; fix the templates (or pass --k8s-version) and run migrate again", err)
	}
	return nil
}

// readMatched reads a file a template glob matched: from the overlay
// (Verify's rewritten files) when it holds the file, else through the door.
func (p *Project) readMatched(file string) ([]byte, error) {
	if src, ok := p.opts.overlay[file]; ok {
		return src, nil
	}
	return p.reader.ReadFile(file)
}
