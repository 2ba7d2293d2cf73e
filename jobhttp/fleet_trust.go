package jobhttp

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jobgen/jobgen/generated/jobs"
)

// A fleet handler (NewFleet) forwards a caller's follow, kill, input and
// raw download to the host that owns the job. The host must learn whose
// request it is without trusting a header anyone could send: the fleet
// signs each forwarded request with a key the two share, binding the
// caller's session to the method, the host, the path and query, the
// resume offset and the time, and a host's handler accepts the session only
// when the signature verifies (TrustFleet). See decision 0130.

// A FleetKey is a secret a fleet handler shares with the hosts it forwards
// to. ID names it in each signed request, so that a host may hold the old
// and the new key while they are rotated; Secret is at least 32 random
// bytes.
type FleetKey struct {
	ID     string
	Secret []byte
}

// The headers of a signed request. A fleet sets them on what it forwards
// and removes any that its caller sent.
const (
	fleetKeyHeader       = "Jobgen-Fleet-Key"
	fleetSessionHeader   = "Jobgen-Fleet-Session"
	fleetTimeHeader      = "Jobgen-Fleet-Time"
	fleetSignatureHeader = "Jobgen-Fleet-Signature"
)

// FleetSkew is how far a signed request's time may be from the host's
// clock: a request is refused once it is older, so a recorded one cannot
// be replayed for long.
const FleetSkew = 30 * time.Second

// ErrFleetSignature: a request carries a fleet's signature headers and
// they do not verify (an unknown key, a stale time, a signature that does
// not match). A host's handler answers it 401.
var ErrFleetSignature = errors.New("jobhttp: fleet signature refused")

// checkFleetKey reports why k cannot sign, or nil.
func checkFleetKey(k FleetKey) error {
	if k.ID == "" || strings.ContainsAny(k.ID, " \t\r\n") {
		return errors.New("jobhttp: a FleetKey needs an ID without spaces")
	}
	if len(k.Secret) < 32 {
		return fmt.Errorf("jobhttp: FleetKey %q has %d bytes of secret, want at least 32", k.ID, len(k.Secret))
	}
	return nil
}

// TrustFleet returns a Session function for a host's Handler: a request a
// fleet signed with one of keys is the session the fleet names; a request
// that carries a fleet's headers but does not verify is refused
// (ErrFleetSignature); any other request is answered by own, the host's
// own authentication of its direct callers (nil refuses them all). A key
// that cannot sign (see FleetKey) is refused by NewFleet; here it panics,
// as a mistake in the program.
func TrustFleet(keys []FleetKey, own func(*http.Request) (jobs.SessionID, error)) func(*http.Request) (jobs.SessionID, error) {
	byID := make(map[string][]byte, len(keys))
	for _, k := range keys {
		if err := checkFleetKey(k); err != nil {
			panic(err)
		}
		byID[k.ID] = k.Secret
	}
	return func(r *http.Request) (jobs.SessionID, error) {
		if r.Header.Get(fleetSignatureHeader) == "" && r.Header.Get(fleetSessionHeader) == "" && r.Header.Get(fleetKeyHeader) == "" {
			if own == nil {
				return "", errors.New("jobhttp: this host answers only its fleet's signed requests")
			}
			return own(r)
		}
		return verifyFleet(r, byID, time.Now())
	}
}

// signFleet signs r, about to be sent to a host, as a request of session
// at now, with key.
func signFleet(r *http.Request, key FleetKey, session jobs.SessionID, now time.Time) {
	at := strconv.FormatInt(now.Unix(), 10)
	r.Header.Set(fleetKeyHeader, key.ID)
	r.Header.Set(fleetSessionHeader, string(session))
	r.Header.Set(fleetTimeHeader, at)
	r.Header.Set(fleetSignatureHeader, "v1="+fleetMAC(key.Secret, key.ID, at, r.Method, r.Host, r.URL.RequestURI(), string(session), r.Header.Get("Last-Event-ID")))
}

// verifyFleet returns the session a signed request names when its
// signature verifies under one of keys at now.
func verifyFleet(r *http.Request, keys map[string][]byte, now time.Time) (jobs.SessionID, error) {
	id, session, at := r.Header.Get(fleetKeyHeader), r.Header.Get(fleetSessionHeader), r.Header.Get(fleetTimeHeader)
	secret, ok := keys[id]
	if !ok {
		return "", fmt.Errorf("%w: unknown key %q", ErrFleetSignature, id)
	}
	sec, err := strconv.ParseInt(at, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%w: time %q", ErrFleetSignature, at)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > FleetSkew || d < -FleetSkew {
		return "", fmt.Errorf("%w: signed %v from this host's clock, more than %v", ErrFleetSignature, d.Round(time.Second), FleetSkew)
	}
	sig, ok := strings.CutPrefix(r.Header.Get(fleetSignatureHeader), "v1=")
	got, err := hex.DecodeString(sig)
	want, _ := hex.DecodeString(fleetMAC(secret, id, at, r.Method, r.Host, r.URL.RequestURI(), session, r.Header.Get("Last-Event-ID")))
	if !ok || err != nil || !hmac.Equal(got, want) {
		return "", fmt.Errorf("%w: the signature does not match", ErrFleetSignature)
	}
	if session == "" {
		return "", fmt.Errorf("%w: no session", ErrFleetSignature)
	}
	return jobs.SessionID(session), nil
}

// fleetMAC is the hex HMAC-SHA256 under secret of a signed request's
// parts, one per line, after the scheme's name: no two requests that
// differ in a part sign alike.
func fleetMAC(secret []byte, parts ...string) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("jobgen-fleet-v1\n"))
	for _, p := range parts {
		m.Write([]byte(strconv.Quote(p)))
		m.Write([]byte{'\n'})
	}
	return hex.EncodeToString(m.Sum(nil))
}
