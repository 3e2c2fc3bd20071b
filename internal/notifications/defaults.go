package notifications

// defaults are the built-in templates every site starts with: the
// customer mails, in the words Tessera has always sent them. A site's own
// version of one replaces it; deleting that brings the default back.
// Variables: site (name, url), customer (email, name, firstname,
// lastname), token, and the link to open (reset_url, confirm_url).
var defaults = map[string]doc{
	PasswordReset: {
		Name:        "Password reset",
		Description: "Sent to a customer who asked to reset their password: a link (and token) that sets a new one.",
		Subject:     "Reset your password for {{ site.name }}",
		Text: "Someone asked to reset the password of your account on {{ site.name }}.\n\n" +
			"To choose a new password, open\n{{ reset_url }}\n\n" +
			"or send this token with your new password: {{ token }}\n\n" +
			"The link works once, for an hour. If you did not ask for it, ignore this mail.",
	},
	Confirmation: {
		Name:        "Email confirmation",
		Description: "Sent to a new customer of a site that confirms emails: a link (and token) that confirms the address.",
		Subject:     "Confirm your email for {{ site.name }}",
		Text: "Welcome to {{ site.name }}. To confirm your email, open\n{{ confirm_url }}\n\n" +
			"or send this token: {{ token }}\n\nThe link works once, for seven days.",
	},
}
