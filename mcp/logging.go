package mcp

import "encoding/json"

// Logging follows schema/2025-11-25. In 2026-07-28 logging is deprecated:
// logging/setLevel is gone and a request opts in with
// _meta["io.modelcontextprotocol/logLevel"] (RequestMeta.LogLevel).

// LoggingLevel is the severity of a log message, as in syslog (RFC 5424).
type LoggingLevel string

// The logging levels, from least to most severe.
const (
	LevelDebug     LoggingLevel = "debug"
	LevelInfo      LoggingLevel = "info"
	LevelNotice    LoggingLevel = "notice"
	LevelWarning   LoggingLevel = "warning"
	LevelError     LoggingLevel = "error"
	LevelCritical  LoggingLevel = "critical"
	LevelAlert     LoggingLevel = "alert"
	LevelEmergency LoggingLevel = "emergency"
)

var levels = [...]LoggingLevel{LevelDebug, LevelInfo, LevelNotice, LevelWarning,
	LevelError, LevelCritical, LevelAlert, LevelEmergency}

// Severity orders the levels: 1 for debug up to 8 for emergency, and 0
// for an unknown level. A message at level m passes a threshold t when
// m.Severity() >= t.Severity().
func (l LoggingLevel) Severity() int {
	for i, x := range levels {
		if x == l {
			return i + 1
		}
	}
	return 0
}

// IsValid reports whether l is one of the eight levels.
func (l LoggingLevel) IsValid() bool { return l.Severity() > 0 }

// SetLevelParams are the params of logging/setLevel (legacy era).
type SetLevelParams struct {
	// Level is the least severe level the client wants to receive.
	Level LoggingLevel `json:"level"`
	Meta  RequestMeta  `json:"_meta,omitzero"`
}

// LoggingMessageParams are the params of notifications/message.
type LoggingMessageParams struct {
	Level LoggingLevel `json:"level"`
	// Logger names the logger that issued the message.
	Logger string `json:"logger,omitempty"`
	// Data is any JSON value (a string, an object...), kept verbatim. It
	// must not contain secrets or personal data.
	Data json.RawMessage `json:"data"`
	Meta Meta            `json:"_meta,omitempty"`
}
