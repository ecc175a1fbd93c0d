package launch

import (
	"net/url"
	"strings"
	"unicode"

	"github.com/svcplatform/svc/client"
	"github.com/svcplatform/svc/internal/svcerr"
	"github.com/svcplatform/svc/schema"
)

// MaxMetadataURL is the longest URL a launch's image, tweet or website may be.
const MaxMetadataURL = 2048

// metadata is a launch's checked metadata: nil where left out.
type metadata struct {
	image, tweet, website *string
}

// checkMetadata validates the launch's optional image, tweet and website, each an http(s) URL of at most
// MaxMetadataURL characters; a refusal names its field.
func checkMetadata(m client.LaunchMetadata) (metadata, error) {
	var (
		out metadata
		err error
	)
	if out.image, err = checkURL("image", "of the token's image", m.Image); err != nil {
		return metadata{}, err
	}
	if out.tweet, err = checkURL("tweet", "of the launch's tweet", m.Tweet); err != nil {
		return metadata{}, err
	}
	if out.website, err = checkURL("website", "of the token's website", m.Website); err != nil {
		return metadata{}, err
	}
	return out, nil
}

// checkURL checks field's value raw, "" being left out: an absolute http or https URL with a host, no
// user name or password, no spaces or control characters, at most MaxMetadataURL characters.
func checkURL(field, what, raw string) (*string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	if n := len([]rune(raw)); n > MaxMetadataURL {
		return nil, svcerr.Invalid(field, "%s is at most %d characters, not %d", field, MaxMetadataURL, n)
	}
	if strings.HasPrefix(strings.ToLower(raw), "data:") {
		return nil, svcerr.Invalid(field, "%s is a URL (http or https) %s; data: URIs are not accepted", field, what)
	}
	if strings.IndexFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return nil, svcerr.Invalid(field, "%s is a URL (http or https) %s without spaces or control characters", field, what)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Hostname() == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, svcerr.Invalid(field, "%s is a URL (http or https) %s, not %q", field, what, clip(raw))
	}
	if u.User != nil {
		return nil, svcerr.Invalid(field, "%s must not carry a user name or password", field)
	}
	return &raw, nil
}

// clip shortens s for an error message.
func clip(s string) string {
	const most = 80
	if r := []rune(s); len(r) > most {
		return string(r[:most]) + "…"
	}
	return s
}

// apply stores the metadata on launch l.
func (m metadata) apply(l *schema.TokenLaunch) {
	l.ImageURL, l.TweetURL, l.WebsiteURL = m.image, m.tweet, m.website
}

// metadataOf is launch l's metadata as the API answers it.
func metadataOf(l *schema.TokenLaunch) client.LaunchMetadata {
	return client.LaunchMetadata{Image: derefOr(l.ImageURL, ""), Tweet: derefOr(l.TweetURL, ""), Website: derefOr(l.WebsiteURL, "")}
}
