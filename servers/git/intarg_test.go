package git

import (
	"fmt"
	"math"
	"testing"
)

// TestIntArgRefusesWhatTheSchemaRefuses: a numeric argument becomes an
// int only when it is a whole number within its bounds, whatever reaches
// the conversion.
func TestIntArgRefusesWhatTheSchemaRefuses(t *testing.T) {
	for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1e300, 1e300, -1, 0.5, 1.5, 101, 1 << 63} {
		if n, err := intArg("max_count", &v, 10, 0, 100); err == nil || err.Error() != fmt.Sprintf("max_count must be an integer from 0 to 100, not %v", v) {
			t.Errorf("intArg(%v) = %d, %v; want an error naming the range", v, n, err)
		}
	}
	for _, v := range []float64{0, 1, 100} {
		if n, err := intArg("max_count", &v, 10, 0, 100); err != nil || float64(n) != v {
			t.Errorf("intArg(%v) = %d, %v", v, n, err)
		}
	}
	if n, err := intArg("max_count", nil, 10, 0, 100); err != nil || n != 10 {
		t.Errorf("intArg(nil) = %d, %v; want the default 10", n, err)
	}
}
