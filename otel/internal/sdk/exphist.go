package sdk

import (
	"errors"
	"math"

	"go.opentelemetry.io/otel"
)

// The base-2 exponential histogram of the specification (metrics SDK,
// "Base2 Exponential Bucket Histogram Aggregation"): at scale s, bucket
// i holds the values in (2^(i/2^s), 2^((i+1)/2^s)]. It starts at the
// finest scale and halves its resolution (merging pairs of buckets)
// whenever a value would need more than maxSize buckets on its side.

// The scales of the OTLP mapping functions.
const (
	expMaxScale = 20
	expMinScale = -10
)

// DefaultExpMaxSize and DefaultExpMaxScale are the specification's
// defaults for base2_exponential_bucket_histogram.
const (
	DefaultExpMaxSize  = 160
	DefaultExpMaxScale = expMaxScale
)

type expHistogram struct {
	maxSize  int
	scale    int32
	zero     uint64
	pos, neg expBuckets
}

// expBuckets are consecutive bucket counts, the first of index start.
type expBuckets struct {
	start  int32
	counts []uint64
}

func newExpHistogram(maxSize int, maxScale int32) *expHistogram {
	return &expHistogram{maxSize: maxSize, scale: maxScale}
}

// record counts v, which is neither NaN nor infinite, in its bucket.
func (h *expHistogram) record(v float64) {
	a := math.Abs(v)
	if a == 0 {
		h.zero++
		return
	}
	b := &h.pos
	if v < 0 {
		b = &h.neg
	}
	i := expIndex(a, h.scale)
	if d := b.downscaleFor(i, h.maxSize); d > 0 {
		if h.scale-d < expMinScale {
			otel.Handle(errors.New("sdk: exponential histogram: a value beyond the smallest scale"))
			return
		}
		h.scale -= d
		h.pos.downscale(d)
		h.neg.downscale(d)
		i = expIndex(a, h.scale)
	}
	b.add(i)
}

// expIndex is the index of the bucket of a (positive, finite) at scale:
// ceil(log2(a)·2^scale) - 1, computed from a's binary exponent and
// fraction.
func expIndex(a float64, scale int32) int32 {
	frac, exp := math.Frexp(a) // a = frac·2^exp, frac in [0.5, 1)
	if scale <= 0 {
		// A power of two (frac 0.5) is the upper bound of its bucket.
		c := int32(1)
		if frac == 0.5 {
			c = 2
		}
		return (int32(exp) - c) >> -scale
	}
	return int32(exp)<<scale + int32(math.Log(frac)*math.Ldexp(math.Log2E, int(scale))) - 1
}

// downscaleFor returns by how much the scale must drop for the buckets
// to hold index i within maxSize buckets.
func (b *expBuckets) downscaleFor(i int32, maxSize int) int32 {
	if len(b.counts) == 0 {
		return 0
	}
	lo, hi := int64(min(i, b.start)), int64(max(i, b.start+int32(len(b.counts))-1))
	var d int32
	for hi-lo >= int64(maxSize) {
		lo >>= 1
		hi >>= 1
		d++
	}
	return d
}

// add counts one in bucket i, growing the buckets to reach it.
func (b *expBuckets) add(i int32) {
	switch end := b.start + int32(len(b.counts)) - 1; {
	case len(b.counts) == 0:
		b.start, b.counts = i, append(b.counts, 1)
		return
	case i < b.start:
		counts := make([]uint64, int(end-i)+1)
		copy(counts[b.start-i:], b.counts)
		b.start, b.counts = i, counts
	case i > end:
		b.counts = append(b.counts, make([]uint64, int(i-end))...)
	}
	b.counts[i-b.start]++
}

// downscale merges the buckets for a scale d lower: bucket i becomes
// bucket i>>d.
func (b *expBuckets) downscale(d int32) {
	if len(b.counts) == 0 {
		b.start >>= d
		return
	}
	start := b.start >> d
	end := (b.start + int32(len(b.counts)) - 1) >> d
	counts := make([]uint64, int(end-start)+1)
	for j, c := range b.counts {
		counts[(b.start+int32(j))>>d-start] += c
	}
	b.start, b.counts = start, counts
}

// snapshot writes the buckets into p.
func (h *expHistogram) snapshot(p *ExpHistogramPoint) {
	p.Scale, p.ZeroCount = h.scale, h.zero
	p.Positive = Buckets{Offset: h.pos.start, Counts: append([]uint64(nil), h.pos.counts...)}
	p.Negative = Buckets{Offset: h.neg.start, Counts: append([]uint64(nil), h.neg.counts...)}
}
