package jsonrpc

// Default bounds. Each can be changed through Limits.
const (
	// DefaultMaxMessageSize bounds one message (or one batch) in bytes.
	DefaultMaxMessageSize = 16 << 20
	// DefaultMaxDepth bounds the nesting of JSON arrays and objects.
	DefaultMaxDepth = 128
	// DefaultMaxBatchSize bounds the number of members of one batch.
	DefaultMaxBatchSize = 1024
)

// Limits bound what a decoder accepts. The zero value, and a nil *Limits,
// mean the defaults; a negative field means no limit.
type Limits struct {
	// MaxMessageSize is the largest frame accepted, in bytes.
	MaxMessageSize int
	// MaxDepth is the deepest nesting of arrays and objects accepted,
	// counting the message object itself as 1.
	MaxDepth int
	// MaxBatchSize is the largest number of members in one batch.
	MaxBatchSize int
}

func pick(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return int(^uint(0) >> 1)
	}
	return v
}

// MessageSize returns the effective maximum message size.
func (l *Limits) MessageSize() int {
	if l == nil {
		return DefaultMaxMessageSize
	}
	return pick(l.MaxMessageSize, DefaultMaxMessageSize)
}

// Depth returns the effective maximum nesting depth.
func (l *Limits) Depth() int {
	if l == nil {
		return DefaultMaxDepth
	}
	return pick(l.MaxDepth, DefaultMaxDepth)
}

// BatchSize returns the effective maximum batch size.
func (l *Limits) BatchSize() int {
	if l == nil {
		return DefaultMaxBatchSize
	}
	return pick(l.MaxBatchSize, DefaultMaxBatchSize)
}
