// verify-bundle.mjs checks one Sigstore bundle (a taskproof note line) with
// the npm reference verifier @sigstore/verify, independently of sigstore-go.
//
// Usage: node verify-bundle.mjs BUNDLE.json TRUSTED_ROOT.json IDENTITY ISSUER
//
// The bundle holds a DSSE envelope, so no artifact is given: the signature
// covers PAE(payloadType, payload) and @sigstore/verify checks it, the
// certificate chain to the trusted root's Fulcio CA, the Rekor entry
// (inclusion proof and promise, body matching the envelope) and that the
// certificate was valid at Rekor's integrated time. IDENTITY must equal the
// certificate's subject alternative name exactly (escaped and anchored here,
// since @sigstore/verify treats it as a regular expression) and ISSUER the
// Fulcio OIDC issuer extension. Thresholds mirror taskproof verify's
// defaults: one tlog entry, one observer timestamp, no SCT required
// (taskproof does not require SCTs either).
//
// Exit 0 and "OK <identity> <issuer>" on stdout when the bundle verifies;
// exit 1 with the verifier's error code and message on stderr otherwise;
// exit 2 on usage errors.
import { readFileSync } from 'node:fs';
import { bundleFromJSON } from '@sigstore/bundle';
import { TrustedRoot } from '@sigstore/protobuf-specs';
import { Verifier, toSignedEntity, toTrustMaterial } from '@sigstore/verify';

const [bundlePath, rootPath, identity, issuer] = process.argv.slice(2);
if (!bundlePath || !rootPath || !identity || !issuer) {
  console.error('usage: node verify-bundle.mjs BUNDLE.json TRUSTED_ROOT.json IDENTITY ISSUER');
  process.exit(2);
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

try {
  const bundle = bundleFromJSON(JSON.parse(readFileSync(bundlePath, 'utf8')));
  const trustedRoot = TrustedRoot.fromJSON(JSON.parse(readFileSync(rootPath, 'utf8')));
  const verifier = new Verifier(toTrustMaterial(trustedRoot), {
    tlogThreshold: 1,
    timestampThreshold: 1,
    ctlogThreshold: 0,
  });
  const signer = verifier.verify(toSignedEntity(bundle), {
    subjectAlternativeName: '^' + escape(identity) + '$',
    extensions: { issuer },
  });
  console.log(`OK ${signer.identity?.subjectAlternativeName} ${signer.identity?.extensions?.issuer}`);
} catch (err) {
  console.error(`FAIL ${err.code ?? err.name}: ${err.message}`);
  process.exit(1);
}
