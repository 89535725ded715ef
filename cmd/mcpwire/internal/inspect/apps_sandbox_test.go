package inspect

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// cspDirectives parses a Content-Security-Policy into its directives:
// name (lowercase) to values.
func cspDirectives(policy string) map[string][]string {
	d := map[string][]string{}
	for part := range strings.SplitSeq(policy, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		name := strings.ToLower(f[0])
		if _, dup := d[name]; !dup { // a browser keeps the first
			d[name] = f[1:]
		}
	}
	return d
}

// TestAppCSPHasSandboxDirective: the policy of an App's document had no
// sandbox directive, so that its document was sandboxed only by the
// page's iframe attribute, sandbox="allow-scripts": loaded any other way
// (by a browser that sends no Sec-Fetch-Dest, which the sandbox checks),
// it ran on the sandbox listener's origin, with its storage. The policy
// now says "sandbox allow-scripts" itself, the sandbox ext-apps 2.0.x
// hosts give an App's frame (sendSandboxResourceReady's sandbox:
// "allow-scripts").
func TestAppCSPHasSandboxDirective(t *testing.T) {
	as := newAppsServer(t, "/* no SDK: the document is not run */")
	in := inspectServer(t, as.srv)
	status, body := send(t, "POST", in.Base+"/api/app/open?token="+in.Token, `{"tool":"show"}`,
		map[string]string{"Origin": in.Base, "Content-Type": "application/json"})
	var o struct{ Result appView }
	if err := json.Unmarshal([]byte(body), &o); status != http.StatusOK || err != nil || o.Result.Src == "" {
		t.Fatalf("app/open: %d %s", status, body)
	}
	res, err := quick.Do(mustRequest(t, o.Result.Src, map[string]string{"Sec-Fetch-Dest": "iframe"}))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	csp := res.Header.Values("Content-Security-Policy")
	if len(csp) != 1 {
		t.Fatalf("the App's document has %d Content-Security-Policy headers: %q", len(csp), csp)
	}
	sandbox, ok := cspDirectives(csp[0])["sandbox"]
	if !ok || !slices.Equal(sandbox, []string{"allow-scripts"}) {
		t.Errorf("the App's CSP %q: sandbox directive %q (present %v), want [allow-scripts]", csp[0], sandbox, ok)
	}
	if got := cspDirectives(o.Result.Policy)["sandbox"]; !slices.Equal(got, []string{"allow-scripts"}) {
		t.Errorf("the policy the page shows, %q, has sandbox %q", o.Result.Policy, got)
	}
}
