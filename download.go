package seald

// ErrWrongPassword is the EUNAUTHORIZED answer of a download whose password is missing or wrong.
var ErrWrongPassword = Errorf(EUNAUTHORIZED, "the X-Data-Password header is missing or does not match the record's password")
