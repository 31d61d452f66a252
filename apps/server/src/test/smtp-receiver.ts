import net from 'node:net';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The raw message as sent after DATA (headers and body), dot-unstuffed. */
  data: string;
  /** The user of AUTH PLAIN, when the client signed in. */
  user: string | null;
}

export interface SmtpReceiver {
  port: number;
  mails: ReceivedMail[];
  /** Credentials the clients signed in with. */
  logins: Array<{ user: string; password: string }>;
  close(): Promise<void>;
}

/**
 * A minimal SMTP server for tests (EHLO/HELO, AUTH PLAIN, MAIL, RCPT, DATA, RSET, NOOP, QUIT);
 * it keeps every message it accepts. No TLS: clients must not require it.
 */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const mails: ReceivedMail[] = [];
  const logins: SmtpReceiver['logins'] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.setEncoding('utf8');
    const reply = (line: string) => socket.write(`${line}\r\n`);
    let from = '';
    let to: string[] = [];
    let user: string | null = null;
    let data: string[] | null = null;
    let awaitingAuth = false;
    let buffer = '';
    const signIn = (b64: string) => {
      const [, u = '', p = ''] = Buffer.from(b64, 'base64').toString('utf8').split('\0');
      logins.push({ user: u, password: p });
      user = u;
      reply('235 2.7.0 Authentication successful');
    };
    const onLine = (line: string) => {
      if (data) {
        if (line === '.') {
          mails.push({ from, to, data: data.join('\r\n'), user });
          data = null;
          from = '';
          to = [];
          reply('250 2.0.0 Queued');
        } else {
          data.push(line.startsWith('..') ? line.slice(1) : line);
        }
        return;
      }
      if (awaitingAuth) {
        awaitingAuth = false;
        signIn(line.trim());
        return;
      }
      const [verb = '', ...rest] = line.split(' ');
      const arg = rest.join(' ');
      switch (verb.toUpperCase()) {
        case 'EHLO':
          reply('250-localhost');
          reply('250-AUTH PLAIN');
          reply('250 8BITMIME');
          return;
        case 'HELO':
          reply('250 localhost');
          return;
        case 'AUTH': {
          const [mech = '', initial] = arg.split(' ');
          if (mech.toUpperCase() !== 'PLAIN') return void reply('504 5.5.4 Unrecognized authentication type');
          if (initial) signIn(initial);
          else {
            awaitingAuth = true;
            reply('334 ');
          }
          return;
        }
        case 'MAIL':
          from = /<([^>]*)>/.exec(arg)?.[1] ?? '';
          to = [];
          reply('250 2.1.0 OK');
          return;
        case 'RCPT':
          to.push(/<([^>]*)>/.exec(arg)?.[1] ?? '');
          reply('250 2.1.5 OK');
          return;
        case 'DATA':
          data = [];
          reply('354 End data with <CR><LF>.<CR><LF>');
          return;
        case 'RSET':
          from = '';
          to = [];
          reply('250 2.0.0 OK');
          return;
        case 'NOOP':
          reply('250 2.0.0 OK');
          return;
        case 'QUIT':
          reply('221 2.0.0 Bye');
          socket.end();
          return;
        default:
          reply('502 5.5.2 Command not recognized');
      }
    };
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number;
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        onLine(line);
      }
    });
    reply('220 localhost ESMTP test receiver');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    mails,
    logins,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
