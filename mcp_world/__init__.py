"""mcp-world: a simulated world for agents, served over MCP."""
