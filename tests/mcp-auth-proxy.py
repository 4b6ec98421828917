# A test helper: an HTTP proxy on 127.0.0.1:PORT_IN that adds td-mcp's bearer token
# to every request it forwards to 127.0.0.1:PORT_OUT, headers (Host, Origin) otherwise
# as sent, so that a client without a way to send a token (the MCP conformance
# suite) tests the same transport. Prints the port it listens on.
import http.client, http.server, sys
port_in, port_out, token = int(sys.argv[1]), int(sys.argv[2]), open(sys.argv[3]).read().strip()
class P(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def fwd(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else None
        h = {k: v for k, v in self.headers.items() if k.lower() not in ("content-length", "connection")}
        h["Authorization"] = "Bearer " + token
        c = http.client.HTTPConnection("127.0.0.1", port_out, timeout=60)
        c.request(self.command, self.path, body, h)
        r = c.getresponse(); data = r.read()
        self.send_response(r.status)
        for k, v in r.getheaders():
            if k.lower() not in ("content-length", "connection", "transfer-encoding", "date", "server"):
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers(); self.wfile.write(data)
    do_POST = do_GET = do_DELETE = fwd
s = http.server.ThreadingHTTPServer(("127.0.0.1", port_in), P)
print(s.server_address[1], flush=True)
s.serve_forever()
