import { describe, expect, it } from 'vitest';
import { privateKeyProblem } from './ssh-key.js';

// A throwaway ed25519 key sealed with the passphrase "right". With "wrong", its last block happens to
// decrypt to valid padding (about one key in 256 does), so OpenSSL reports undecodable data rather
// than a bad decrypt.
const PADDING_PASSES_WITH_WRONG = `-----BEGIN ENCRYPTED PRIVATE KEY-----
MIGbMFcGCSqGSIb3DQEFDTBKMCkGCSqGSIb3DQEFDDAcBAhDliFkx3Me6gICCAAw
DAYIKoZIhvcNAgkFADAdBglghkgBZQMEASoEELZNr2mDtfozUPYVCniPc2IEQJGV
C30qu/R46dtuE1UdYXzRSsyeDuVmZNLMdg//wELomQ+1albLjU22M7B1LmtH7J7S
hZqWvg7mukGFjnYZp+Q=
-----END ENCRYPTED PRIVATE KEY-----`;

describe('privateKeyProblem', () => {
  it('blames the passphrase for an encrypted key whose wrong passphrase passes the padding check', () => {
    expect(privateKeyProblem(PADDING_PASSES_WITH_WRONG, 'right')).toBeNull();
    expect(privateKeyProblem(PADDING_PASSES_WITH_WRONG, 'wrong')).toBe('Passphrase does not open the private key');
    expect(privateKeyProblem(PADDING_PASSES_WITH_WRONG, '')).toBe('Passphrase does not open the private key');
  });

  it('still calls broken unencrypted text an invalid key', () => {
    expect(privateKeyProblem('-----BEGIN PRIVATE KEY-----\nbm90LWEta2V5\n-----END PRIVATE KEY-----', 'any')).toBe(
      'Private key is not a valid private key',
    );
  });
});
