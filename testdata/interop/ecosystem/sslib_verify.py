"""Verify a DSSE envelope with python-securesystemslib.

Usage: python3 sslib_verify.py KEY.pem ENVELOPE.json

securesystemslib 0.26 (Debian's python3-securesystemslib) has no DSSE
envelope type, so this script builds PAE(payloadType, payload) as the DSSE
protocol defines it and hands each signature, with the keyid the envelope
gives it, to securesystemslib.keys.verify_signature, with the key imported by
securesystemslib from the PEM public key (once per signature scheme the key
type has). verify_signature refuses a signature whose keyid is not the key's
own securesystemslib keyid, as securesystemslib's later Envelope.verify does:
the keyid convention is securesystemslib's, not this script's (and its
signature schema refuses a keyid that is not hexadecimal).

Exit 0 printing "OK <keyid> <scheme>" when a signature verifies; exit 1
printing "FAIL ..." otherwise; exit 2 on usage errors.
"""

import base64
import binascii
import json
import sys

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from securesystemslib import exceptions, keys


def key_dicts(pem):
    """securesystemslib's key dict for each scheme of the PEM public key."""
    public = serialization.load_pem_public_key(pem.encode())
    if isinstance(public, rsa.RSAPublicKey):
        return [keys.import_rsakey_from_public_pem(pem, scheme=s) for s in ("rsassa-pss-sha256", "rsa-pkcs1v15-sha256")]
    if isinstance(public, ec.EllipticCurvePublicKey):
        return [keys.import_ecdsakey_from_public_pem(pem, scheme="ecdsa-sha2-nistp256")]
    if isinstance(public, ed25519.Ed25519PublicKey):
        raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()
        key, _ = keys.format_metadata_to_key({"keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": raw}})
        return [key]
    raise SystemExit("FAIL unsupported key type %s" % type(public).__name__)


def b64decode(text):
    """DSSE allows standard or URL-safe base64, padded or not."""
    padded = text + "=" * (-len(text) % 4)
    if "-" in text or "_" in text:
        return base64.urlsafe_b64decode(padded)
    return base64.b64decode(padded, validate=True)


def pae(payload_type, payload):
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(t), t, len(payload), payload)


def main(argv):
    if len(argv) != 3:
        print("usage: python3 sslib_verify.py KEY.pem ENVELOPE.json", file=sys.stderr)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        candidates = key_dicts(f.read())
    with open(argv[2], encoding="utf-8") as f:
        envelope = json.load(f)
    try:
        message = pae(envelope["payloadType"], b64decode(envelope["payload"]))
        signatures = envelope["signatures"]
    except (KeyError, TypeError, ValueError, binascii.Error) as e:
        print("FAIL malformed envelope: %s" % e)
        return 1
    reasons = []
    for signature in signatures:
        keyid = signature.get("keyid", "")
        sig = binascii.hexlify(b64decode(signature["sig"])).decode()
        for key in candidates:
            try:
                if keys.verify_signature(key, {"keyid": keyid, "sig": sig}, message):
                    print("OK %s %s" % (key["keyid"], key["scheme"]))
                    return 0
                reasons.append("%s: signature does not verify" % key["scheme"])
            except (exceptions.CryptoError, exceptions.FormatError) as e:
                # A keyid that is not the key's own (CryptoError) or not
                # hexadecimal (FormatError): securesystemslib skips it.
                reasons.append("%s: %s" % (key["scheme"], e))
    print("FAIL " + "; ".join(reasons or ["no signature"]))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
