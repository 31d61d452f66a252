import dgram from 'node:dgram';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';
import type { SyslogTransport } from '../../../config/audit-export.js';
import type { ExportedAuditEntry, ExportSink } from '../export-sink.js';
import { octetCounted, syslogMessage } from './syslog-format.js';

/** The largest UDP message sent whole; a bigger entry goes without its changed fields. */
const UDP_MAX_BYTES = 60_000;
const TIMEOUT_MS = 10_000;
/** After Gantry ends its stream, how long it waits for the receiver to close its side. */
const CLOSE_WAIT_MS = 5_000;

export interface SyslogTarget {
  transport: SyslogTransport;
  host: string;
  port: number;
  ca: string | undefined;
  facility: number;
}

/**
 * RFC 5424 messages over UDP (RFC 5426: one datagram each; UDP has no acknowledgement, so a
 * receiver that is down loses them unless the network reports it), TCP or TLS (RFC 6587 octet
 * counting; RFC 5425). Over TCP and TLS each batch gets its own connection, counted delivered
 * when the receiver, having read to the end of Gantry's stream, closes without a reset.
 */
export class SyslogSink implements ExportSink {
  readonly kind = 'syslog' as const;
  readonly key = 'syslog';
  readonly format = 'rfc5424';
  readonly target: string;
  private readonly hostname = os.hostname();

  constructor(private readonly t: SyslogTarget) {
    this.target = `${t.transport}://${t.host.includes(':') ? `[${t.host}]` : t.host}:${t.port}`;
  }

  async send(entries: readonly ExportedAuditEntry[]): Promise<void> {
    const o = { facility: this.t.facility, hostname: this.hostname, procId: String(process.pid) };
    if (this.t.transport === 'udp') {
      const messages = entries.map((e) => {
        const m = syslogMessage(e, o);
        return Buffer.byteLength(m) > UDP_MAX_BYTES ? syslogMessage(e, { ...o, truncate: true }) : m;
      });
      return this.sendUdp(messages);
    }
    return this.sendStream(entries.map((e) => octetCounted(syslogMessage(e, o))).join(''));
  }

  private async sendUdp(messages: string[]): Promise<void> {
    const socket = dgram.createSocket(net.isIPv6(this.t.host) ? 'udp6' : 'udp4');
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        // Connected: an ICMP "port unreachable" comes back as an error on a later send.
        socket.connect(this.t.port, this.t.host, () => resolve());
      });
      for (const m of messages) {
        await new Promise<void>((resolve, reject) => socket.send(m, (err) => (err ? reject(err) : resolve())));
      }
    } finally {
      socket.close();
    }
  }

  private sendStream(payload: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const finish = (err?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(closeWait);
        socket.destroy();
        if (err) reject(err);
        else resolve();
      };
      let closeWait: NodeJS.Timeout | undefined;
      let ended = false;
      const timer = setTimeout(
        () => finish(new Error(`no answer from ${this.target} within ${TIMEOUT_MS / 1000} s`)),
        TIMEOUT_MS,
      );
      const { host, port } = this.t;
      const onConnect = () => {
        socket.write(payload, (err) => {
          if (err) return finish(err);
          ended = true;
          socket.end();
          // A receiver that keeps the connection open after our end took every byte without a reset.
          closeWait = setTimeout(() => finish(), CLOSE_WAIT_MS);
        });
      };
      const socket: net.Socket =
        this.t.transport === 'tls'
          ? tls.connect({ host, port, ca: this.t.ca, servername: net.isIP(host) ? undefined : host }, onConnect)
          : net.connect({ host, port }, onConnect);
      socket.on('error', (err) => finish(err));
      socket.on('data', () => undefined);
      socket.on('close', (hadError) => {
        if (hadError) finish(new Error(`${this.target} reset the connection`));
        else if (!ended) finish(new Error(`${this.target} closed the connection before the entries were sent`));
        else finish();
      });
    });
  }
}
