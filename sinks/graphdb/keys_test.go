package graphdb

import "testing"

// TestSinkCredentials: the credentials come from the variables the job names, a variable named
// explicitly must be set, and unset defaults mean no authentication.
func TestSinkCredentials(t *testing.T) {
	env := map[string]string{DefaultUsernameEnv: "u", DefaultPasswordEnv: "p", "MY_USER": "me", "MY_PASS": "pw"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	tests := []struct {
		sink       Settings
		user, pass string
		err        bool
	}{
		{Settings{}, "u", "p", false},
		{Settings{UsernameEnv: "MY_USER", PasswordEnv: "MY_PASS"}, "me", "pw", false},
		{Settings{UsernameEnv: "MISSING"}, "", "", true},
	}
	for _, tc := range tests {
		u, p, err := tc.sink.Credentials(lookup)
		if u != tc.user || p != tc.pass || (err != nil) != tc.err {
			t.Errorf("%+v: %q %q %v", tc.sink, u, p, err)
		}
	}
	if u, p, err := (&Settings{}).Credentials(func(string) (string, bool) { return "", false }); u != "" || p != "" || err != nil {
		t.Errorf("no variables: %q %q %v, want no authentication", u, p, err)
	}
}
