package seald

// SealRequest is a decoded authentication request. The HTTP layer has checked the members' JSON types; the
// Service checks their meaning.
type SealRequest struct {
	Data    []byte // the raw JSON of the `data` member
	Network string // POLYGON or EOS, from the path
	To      string
	Cc      string
	Subject string
	Body    string
	IsHTML  bool
	// Password, when not nil, protects the owner's download of the stored copy.
	Password *string
	// EncryptedReference asks for an encrypted_ovi of the record as well.
	EncryptedReference bool
}

// SealedPayload reports whether a payload kept for the store step is already its envelope, as create keeps it.
// One kept by an earlier version is the canonical JSON object itself, which begins with '{'; an envelope
// begins with its magic bytes.
func SealedPayload(p []byte) bool { return len(p) > 0 && p[0] != '{' }
