package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPServer is a Model Context Protocol server the client started (stdio)
// and connected to with the official Go SDK: its tools become client-side
// function tools, and a call runs on the server.
type MCPServer struct {
	session *mcp.ClientSession
	tools   []Tool
}

// StartMCP starts cmd as an MCP stdio server, connects, and lists its tools.
// Close stops it.
func StartMCP(ctx context.Context, cmd *exec.Cmd) (*MCPServer, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "farebox-agent", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("agent: starting MCP server %s: %w", cmd.Path, err)
	}
	s := &MCPServer{session: session}
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, fmt.Errorf("agent: listing the tools of MCP server %s: %w", cmd.Path, err)
		}
		s.tools = append(s.tools, s.tool(t))
	}
	return s, nil
}

// StartMCPCommand is StartMCP for a command line such as "node server.js"
// (split on spaces; no shell). The server gets its own process group, so
// a Ctrl-C meant for the client's turn does not kill it.
func StartMCPCommand(ctx context.Context, line string) (*MCPServer, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return nil, errors.New("agent: empty MCP server command")
	}
	cmd := exec.Command(f[0], f[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return StartMCP(ctx, cmd)
}

// Tools are the server's tools, ready for Config.Tools.
func (s *MCPServer) Tools() []Tool { return append([]Tool(nil), s.tools...) }

// Close ends the session and stops the server.
func (s *MCPServer) Close() error { return s.session.Close() }

func (s *MCPServer) tool(t *mcp.Tool) Tool {
	params, err := schemaMap(t.InputSchema)
	if err != nil || params == nil {
		params = map[string]any{"type": "object", "properties": map[string]any{}}
	}
	name := t.Name
	return Tool{Name: name, Description: t.Description, Parameters: params,
		Run: func(ctx context.Context, args json.RawMessage) (Output, error) {
			res, err := s.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				return Output{}, err
			}
			out := mcpOutput(res)
			if res.IsError {
				return Output{}, errors.New(out.Text)
			}
			return out, nil
		}}
}

// mcpOutput turns a tool result into an Output: text parts joined by new
// lines, images kept as images; structured content when there is nothing else.
func mcpOutput(res *mcp.CallToolResult) Output {
	var out Output
	var texts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			out.Images = append(out.Images, Image{MIMEType: c.MIMEType, Data: c.Data})
		default:
			if b, err := json.Marshal(c); err == nil {
				texts = append(texts, string(b))
			}
		}
	}
	if len(texts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			texts = append(texts, string(b))
		}
	}
	out.Text = strings.Join(texts, "\n")
	return out
}
