package s3

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/tkgraph/backfill/internal/testenv"
)

// TestCredentials covers the credential chain: a shared-credentials profile, and errors that
// never reveal keys.
func TestCredentials(t *testing.T) {
	env := testenv.S3(t)
	bucket := testenv.NewBucket(t, env, map[string][]byte{"a.jsonl": []byte("{}\n")})
	glob := func(opts Options) error {
		opts.Endpoint, opts.Region, opts.PathStyle = env.Endpoint, env.Region, true
		fsys, err := New(context.Background(), opts)
		if err != nil {
			return err
		}
		_, err = fsys.Glob(t.Context(), "s3://"+bucket+"/*.jsonl")
		return err
	}
	t.Run("profile", func(t *testing.T) {
		creds := hermeticAWS(t, "", "")
		content := fmt.Sprintf("[itest]\naws_access_key_id = %s\naws_secret_access_key = %s\n", env.AccessKey, env.SecretKey)
		if err := os.WriteFile(creds, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := glob(Options{Profile: "itest"}); err != nil {
			t.Errorf("with profile: %v", err)
		}
		err := glob(Options{})
		if err == nil {
			t.Fatal("without profile or keys: no error")
		}
		t.Logf("without credentials: %v", err)
	})
	for _, access := range []string{env.AccessKey, "wrong-access-d41d8c"} {
		t.Run("wrong secret for "+access, func(t *testing.T) {
			secret := "wrong-secret-6f1c9e"
			hermeticAWS(t, access, secret)
			err := glob(Options{})
			if err == nil {
				t.Fatal("wrong credentials accepted")
			}
			if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), access) {
				t.Errorf("error reveals credentials: %v", err)
			}
			t.Logf("wrong secret: %v", err)
		})
	}
	t.Run("endpoint with user info", func(t *testing.T) {
		hermeticAWS(t, env.AccessKey, env.SecretKey)
		_, err := New(context.Background(), Options{Endpoint: "http://user:hunter2@127.0.0.1:1"})
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("New = %v, want an error without the password", err)
		}
	})
}
