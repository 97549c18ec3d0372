package attest

import (
	"context"
	"fmt"

	"github.com/taskproof/taskproof/dsse"
	"github.com/taskproof/taskproof/signer"
)

// signedLine returns the note line for one statement: a [signer.LineSigner]'s line when
// the only signer is one, else the DSSE envelope signed by every signer (or
// unsigned for none).
func signedLine(ctx context.Context, statement []byte, signers []signer.Signer) ([]byte, error) {
	var ls signer.LineSigner
	for _, s := range signers {
		if l, ok := s.(signer.LineSigner); ok {
			ls = l
		}
	}
	if ls != nil {
		if len(signers) != 1 {
			return nil, fmt.Errorf("%w: the %s signer writes a bundle with exactly one signature and cannot be combined with other signers", ErrRequest, ls.Kind())
		}
		return ls.SignLine(ctx, statement)
	}
	env, err := envelopeFor(ctx, statement, signers)
	if err != nil {
		return nil, err
	}
	return env.MarshalJSON()
}

// envelopeFor signs a statement with every signer, or wraps it unsigned.
func envelopeFor(ctx context.Context, statement []byte, signers []signer.Signer) (*dsse.Envelope, error) {
	if len(signers) == 0 {
		return &dsse.Envelope{PayloadType: dsse.PayloadType, Payload: statement}, nil
	}
	return signer.Sign(ctx, statement, signers...)
}
