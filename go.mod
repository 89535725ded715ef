module github.com/mcpwire/mcpwire

go 1.26.0

require (
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/yosida95/uritemplate/v3 v3.0.2
	go.uber.org/goleak v1.3.0
	golang.org/x/sys v0.49.0
	golang.org/x/text v0.43.0
)

require github.com/stretchr/testify v1.12.1 // indirect
