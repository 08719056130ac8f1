// What the escape batteries try to reach: an HTTP and a TCP listener on the host's loopback,
// counting every request and connection that gets through (each must stay at 0).
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';

export class LoopbackListeners {
  requests = 0;
  connections = 0;
  httpPort = 0;
  tcpPort = 0;
  readonly #http = createHttpServer((_req, res) => {
    this.requests++;
    res.end('reached');
  });
  readonly #tcp = createTcpServer((socket) => {
    this.connections++;
    socket.destroy();
  });

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.#http.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => this.#tcp.listen(0, '127.0.0.1', resolve));
    this.httpPort = (this.#http.address() as AddressInfo).port;
    this.tcpPort = (this.#tcp.address() as AddressInfo).port;
  }

  close(): void {
    this.#http.close();
    this.#tcp.close();
  }
}
