package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/mcp"
	"github.com/mcpwire/mcpwire/server"
)

// The resources of the resources-* scenarios and the caching scenario,
// which reads the first listed resource: test://static-text comes first.

// templateURI is the resource template of resources-templates-read.
const templateURI = "test://template/{id}/data"

// addResources adds the static resources, the watched resource and the
// template.
func (e *everything) addResources() error {
	return errors.Join(
		e.srv.AddResource(&mcp.Resource{
			URI:         "test://static-text",
			Name:        "static-text",
			Title:       "Static text resource",
			Description: "A text resource whose content never changes",
			MimeType:    "text/plain",
		}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{
				URI: p.URI, MimeType: "text/plain", Text: "This is the content of the static text resource.",
			}}}, nil
		}),
		e.srv.AddResource(&mcp.Resource{
			URI:         "test://static-binary",
			Name:        "static-binary",
			Title:       "Static binary resource",
			Description: "A 1x1 PNG image",
			MimeType:    "image/png",
		}, func(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{
				URI: p.URI, MimeType: "image/png", Blob: pngBase64,
			}}}, nil
		}),
		e.srv.AddResource(&mcp.Resource{
			URI:         watchedURI,
			Name:        "watched-resource",
			Title:       "Watched resource",
			Description: "A text resource to subscribe to; test_trigger_resource_update changes it",
			MimeType:    "text/plain",
		}, e.readWatched),
		e.srv.AddResourceTemplate(&mcp.ResourceTemplate{
			URITemplate: templateURI,
			Name:        "template-data",
			Title:       "Template resource",
			Description: "JSON data for any id",
			MimeType:    "application/json",
		}, readTemplate, nil),
	)
}

// readWatched reads test://watched-resource at its current revision.
func (e *everything) readWatched(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, _ map[string]string) (*mcp.ReadResourceResult, error) {
	e.mu.Lock()
	rev := e.watchedRevision
	e.mu.Unlock()
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{
		URI: p.URI, MimeType: "text/plain", Text: fmt.Sprintf("Watched resource content, revision %d.", rev),
	}}}, nil
}

// templateData is the content of a test://template/{id}/data resource.
type templateData struct {
	ID           string `json:"id"`
	TemplateTest bool   `json:"templateTest"`
	Data         string `json:"data"`
}

// readTemplate reads test://template/{id}/data:
// {"id":"123","templateTest":true,"data":"Data for ID: 123"} for id 123.
func readTemplate(ctx context.Context, r *server.Request, p *mcp.ReadResourceParams, vars map[string]string) (*mcp.ReadResourceResult, error) {
	id := vars["id"]
	if id == "" {
		return nil, mcp.ResourceNotFoundError(p.URI)
	}
	b, err := json.Marshal(templateData{ID: id, TemplateTest: true, Data: "Data for ID: " + id})
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []mcp.ResourceContents{{
		URI: p.URI, MimeType: "application/json", Text: string(b),
	}}}, nil
}
