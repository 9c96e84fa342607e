package viz

import (
	"errors"
	"slices"
)

// FieldError is an error about the value of one field of a spec (one of
// Keys): the desktop app's fields and the playground's page show it under
// that field. Err keeps the words of whoever found the fault (tensor's,
// sbp's, viz's own), so Error is Err's message unchanged.
//
// A fault in how two values relate (a shape and the size it cannot expand
// to, an SBP that does not fit the placement) is blamed on Key, the value
// read last, unless the field a person just typed is among Also: then on
// that field, where their attention is.
type FieldError struct {
	Key  string   // the field blamed
	Err  error    // the fault, in its finder's words
	Also []string // the other fields the fault is about, if it is a relation
}

func (e *FieldError) Error() string { return e.Err.Error() }

// Unwrap returns Err, so errors.Is finds tensor's and sbp's sentinels.
func (e *FieldError) Unwrap() error { return e.Err }

// onField wraps a non-nil err as a fault of key's value (and of also's,
// for a relation); nil stays nil.
func onField(key string, err error, also ...string) error {
	if err == nil {
		return nil
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return err
	}
	return &FieldError{Key: key, Err: err, Also: also}
}

// Blame names the field err is about: changed (the field just typed) when
// err is about it or names no field, else the FieldError's Key.
func Blame(err error, changed string) string {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return changed
	}
	if changed != "" && slices.Contains(fe.Also, changed) {
		return changed
	}
	return fe.Key
}
