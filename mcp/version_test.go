package mcp

import (
	"slices"
	"testing"
)

func TestVersionSets(t *testing.T) {
	tests := []struct {
		v                    Version
		supported, modern    bool
		negotiated           Version
		batch, structured    bool
		elicitation, tasks   bool
		resultType           bool
		initialize, discover bool
	}{
		{v: Version20241105, supported: true, negotiated: Version20241105, initialize: true},
		{v: Version20250326, supported: true, negotiated: Version20250326, batch: true, initialize: true},
		{v: Version20250618, supported: true, negotiated: Version20250618, structured: true, elicitation: true, initialize: true},
		{v: Version20251125, supported: true, negotiated: Version20251125, structured: true, elicitation: true, tasks: true, initialize: true},
		{v: Version20260728, supported: true, modern: true, negotiated: LatestLegacy, structured: true, elicitation: true, resultType: true, discover: true},
		// Unknown versions, including ones that sort between known ones:
		// membership, not order.
		{v: "2025-12-01", negotiated: LatestLegacy},
		{v: "2025-06-19", negotiated: LatestLegacy},
		{v: "2026-07-29", negotiated: LatestLegacy},
		{v: "2024-11-04", negotiated: LatestLegacy},
		{v: "draft", negotiated: LatestLegacy},
		{v: "", negotiated: LatestLegacy},
		{v: "2025-11-25 ", negotiated: LatestLegacy},
	}
	for _, tt := range tests {
		t.Run(string(tt.v), func(t *testing.T) {
			check := func(name string, got, want bool) {
				t.Helper()
				if got != want {
					t.Errorf("%s(%q) = %v, want %v", name, tt.v, got, want)
				}
			}
			check("IsSupported", IsSupported(tt.v), tt.supported)
			check("IsModern", IsModern(tt.v), tt.modern)
			check("IsLegacy", IsLegacy(tt.v), tt.supported && !tt.modern)
			check("AllowsBatch", AllowsBatch(tt.v), tt.batch)
			check("HasStructuredOutput", HasStructuredOutput(tt.v), tt.structured)
			check("HasElicitation", HasElicitation(tt.v), tt.elicitation)
			check("HasTasks", HasTasks(tt.v), tt.tasks)
			check("HasResultType", HasResultType(tt.v), tt.resultType)
			check("Has(FeatureInitialize)", tt.v.Has(FeatureInitialize), tt.initialize)
			check("Has(FeatureDiscover)", tt.v.Has(FeatureDiscover), tt.discover)
			if got := NegotiateLegacy(tt.v); got != tt.negotiated {
				t.Errorf("NegotiateLegacy(%q) = %q, want %q", tt.v, got, tt.negotiated)
			}
		})
	}
}

// TestFeatureTable spells out, feature by feature, the revisions that have
// it, as the changelogs state.
func TestFeatureTable(t *testing.T) {
	const (
		v1 = Version20241105
		v2 = Version20250326
		v3 = Version20250618
		v4 = Version20251125
		v5 = Version20260728
	)
	want := map[Feature][]Version{
		FeatureInitialize:            {v1, v2, v3, v4},
		FeaturePing:                  {v1, v2, v3, v4},
		FeatureSetLevel:              {v1, v2, v3, v4},
		FeatureResourceSubscribe:     {v1, v2, v3, v4},
		FeatureServerRequests:        {v1, v2, v3, v4},
		FeatureRootsListChanged:      {v1, v2, v3, v4},
		FeatureBatch:                 {v2},
		FeatureAudioContent:          {v2, v3, v4, v5},
		FeatureToolAnnotations:       {v2, v3, v4, v5},
		FeatureCompletions:           {v2, v3, v4, v5},
		FeatureProgressMessage:       {v2, v3, v4, v5},
		FeatureStructuredOutput:      {v3, v4, v5},
		FeatureElicitation:           {v3, v4, v5},
		FeatureResourceLinks:         {v3, v4, v5},
		FeatureProtocolVersionHeader: {v3, v4, v5},
		FeatureIcons:                 {v4, v5},
		FeatureURLElicitation:        {v4, v5},
		FeatureElicitationComplete:   {v4},
		FeatureSamplingTools:         {v4, v5},
		FeatureTasks:                 {v4},
		FeatureResultType:            {v5},
		FeatureCacheableResults:      {v5},
		FeatureDiscover:              {v5},
		FeatureSubscriptionsListen:   {v5},
		FeatureInputRequired:         {v5},
	}
	if len(want) != int(numFeatures) {
		t.Fatalf("table covers %d features, want %d", len(want), numFeatures)
	}
	for f, vs := range want {
		for _, v := range SupportedVersions() {
			if got := v.Has(f); got != slices.Contains(vs, v) {
				t.Errorf("%s.Has(%s) = %v", v, f, got)
			}
		}
		if Version("2025-12-01").Has(f) {
			t.Errorf("unknown version has %s", f)
		}
		if f.String() == "unknown feature" {
			t.Errorf("feature %d has no name", f)
		}
	}
	if Version20251125.Has(numFeatures) || Version20251125.Has(200) {
		t.Error("an out-of-range feature is reported present")
	}
}

func TestSupportedVersions(t *testing.T) {
	got := SupportedVersions()
	want := []Version{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}
	if !slices.Equal(got, want) {
		t.Errorf("SupportedVersions() = %v, want %v", got, want)
	}
	got[0] = "mutated"
	if SupportedVersions()[0] != Version20260728 {
		t.Error("SupportedVersions returns shared storage")
	}
	if Latest != Version20260728 || LatestLegacy != Version20251125 {
		t.Errorf("Latest = %s, LatestLegacy = %s", Latest, LatestLegacy)
	}
}
