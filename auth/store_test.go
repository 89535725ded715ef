package auth

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestTokenStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "tokens.json")
	for name, s := range map[string]TokenStore{"memory": &MemoryTokenStore{}, "file": NewFileTokenStore(path)} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			if tok, err := s.Token(ctx, "r", "i"); tok != nil || err != nil {
				t.Fatalf("empty store: %v, %v", tok, err)
			}
			tok := &Token{AccessToken: "a", RefreshToken: "r1", Expiry: time.Unix(1_800_000_000, 0).UTC(), Scopes: []string{"x"}, Issuer: "i", Resource: "r"}
			if err := s.SetToken(ctx, "r", "i", tok); err != nil {
				t.Fatal(err)
			}
			s.SetToken(ctx, "r", "other-issuer", &Token{AccessToken: "b"})
			got, err := s.Token(ctx, "r", "i")
			if err != nil || !reflect.DeepEqual(got, tok) {
				t.Errorf("Token = %+v, %v", got, err)
			}
			c := &ClientCredentials{Issuer: "i", ClientID: "c", ClientSecret: "s", RedirectURIs: []string{"http://127.0.0.1/cb"}}
			if err := s.SetClient(ctx, "i", c); err != nil {
				t.Fatal(err)
			}
			if got, _ := s.Client(ctx, "i"); !reflect.DeepEqual(got, c) {
				t.Errorf("Client = %+v", got)
			}
			if got, _ := s.Client(ctx, "other"); got != nil {
				t.Errorf("credentials of another issuer: %+v", got)
			}
			s.SetToken(ctx, "r", "i", nil)
			s.SetClient(ctx, "i", nil)
			if got, _ := s.Token(ctx, "r", "i"); got != nil {
				t.Error("token not deleted")
			}
			if got, _ := s.Token(ctx, "r", "other-issuer"); got == nil {
				t.Error("deleted the token of another issuer")
			}
			if got, _ := s.Client(ctx, "i"); got != nil {
				t.Error("client not deleted")
			}
		})
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, err := NewFileTokenStore(path).Token(t.Context(), "r", "i"); err == nil {
		t.Error("corrupt file accepted")
	}
}
