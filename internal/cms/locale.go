package cms

import "slices"

// CheckContentLocale returns the spec's message-only 422 when locale is not
// one of the site's enabled locales. An empty locale is valid (the default).
func CheckContentLocale(locale string, enabled []string) error {
	if locale == "" || slices.Contains(enabled, locale) {
		return nil
	}
	return &Error{Code: EBareInvalid, Message: "Invalid content_locale: " + locale + " is not enabled for this site."}
}
