package webhook

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestVerbatim fails when ValidateWebhookURL or ValidateWebhookService
// differ from the k8s.io/apiserver version this module builds with.
func TestVerbatim(t *testing.T) {
	out, err := exec.CommandContext(t.Context(), "go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/apiserver").Output()
	if err != nil {
		t.Fatalf("go list -m k8s.io/apiserver: %v", err)
	}
	upstream := funcs(t, filepath.Join(strings.TrimSpace(string(out)), "pkg/util/webhook/validation.go"))
	ours := funcs(t, "validation.go")
	for _, name := range []string{"ValidateWebhookURL", "ValidateWebhookService"} {
		if upstream[name] == "" || upstream[name] != ours[name] {
			t.Errorf("%s differs from k8s.io/apiserver's; copy it again:\nupstream:\n%s\nours:\n%s", name, upstream[name], ours[name])
		}
	}
}

// funcs returns the printed body of every function in file.
func funcs(t *testing.T, file string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok {
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fd.Body); err != nil {
				t.Fatal(err)
			}
			out[fd.Name.Name] = b.String()
		}
	}
	return out
}

// TestCABundle pins client-go's messages (transport.TLSConfigFor with CA
// data only, as k8s.io/apiserver's ValidateCABundle calls it).
func TestCABundle(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	for _, tc := range []struct {
		name, bundle, want string
	}{
		{"empty", "", ""},
		{"certificate", string(cert), ""},
		{"not PEM", "hello", "unable to load root certificates: unable to parse bytes as PEM block"},
		{"no certificate", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}})), "unable to load root certificates: no valid certificate authority data seen"},
		{"bad certificate", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1, 2, 3}})), "unable to load root certificates: failed to parse certificate: x509: malformed certificate"},
	} {
		errs := ValidateCABundle(field.NewPath("caBundle"), []byte(tc.bundle))
		got := ""
		if len(errs) > 0 {
			got = errs[0].Detail
		}
		if got != tc.want || len(errs) > 1 {
			t.Errorf("%s: got %q (%d errors), want %q", tc.name, got, len(errs), tc.want)
		}
	}
}
