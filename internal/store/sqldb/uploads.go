package sqldb

import (
	"strings"
	"time"

	"github.com/tessera-cms/tessera/internal/store"
)

// uploads stores upload records in uploads. Every statement filters on
// site_id; the table references sites, so a site's uploads go with it. Its
// index (site_id, created_at DESC, id DESC) serves List.
type uploads struct{ *tx }

const uploadColumns = `id, site_id, blob_key, filename, content_type, size, checksum, width, height,
	tmp, expires_at, created_at`

// nullTimeCol scans a nullable timestamp column; NULL is the zero time.
type nullTimeCol struct{ t *time.Time }

func (c nullTimeCol) Scan(src any) error {
	if src == nil {
		*c.t = time.Time{}
		return nil
	}
	return timeCol(c).Scan(src)
}

func scanUpload(row scanner) (*store.Upload, error) {
	var u store.Upload
	err := row.Scan(&u.ID, &u.SiteID, &u.Key, &u.Filename, &u.ContentType, &u.Size, &u.Checksum,
		&u.Width, &u.Height, &u.Tmp, nullTimeCol{&u.ExpiresAt}, timeCol{&u.CreatedAt})
	if err != nil {
		return nil, err
	}
	return &u, nil
}

func (x uploads) Create(u *store.Upload) error {
	_, err := x.exec(`INSERT INTO uploads (`+uploadColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.SiteID, u.Key, u.Filename, u.ContentType, u.Size, u.Checksum, u.Width, u.Height,
		u.Tmp, x.nullTimeValue(u.ExpiresAt), x.time(u.CreatedAt))
	if err != nil {
		return x.fail(err, "create upload "+u.ID+" of site "+u.SiteID, "An upload with id "+u.ID+" already exists.")
	}
	return nil
}

func (x uploads) Get(siteID, id string) (*store.Upload, error) {
	u, err := scanUpload(x.queryRow(`SELECT `+uploadColumns+` FROM uploads WHERE site_id = ? AND id = ?`, siteID, id))
	if err != nil {
		return nil, x.fail(err, "get upload "+id+" of site "+siteID, "")
	}
	return u, nil
}

func (x uploads) List(siteID string, opt store.ListOptions) ([]*store.Upload, int, error) {
	const where = ` FROM uploads WHERE site_id = ?`
	items, total, err := list(x.tx, scanUpload, opt,
		`SELECT COUNT(*)`+where,
		`SELECT `+uploadColumns+where+` ORDER BY created_at DESC, id DESC`,
		siteID)
	if err != nil {
		return nil, 0, x.fail(err, "list uploads of site "+siteID, "")
	}
	return items, total, nil
}

func (x uploads) Find(siteID string, f store.UploadFilter, opt store.ListOptions) ([]*store.Upload, int, error) {
	where := ` FROM uploads WHERE site_id = ?`
	args := []any{siteID}
	if f.Name != "" {
		where += ` AND lower(filename) LIKE ? ESCAPE '\'`
		args = append(args, "%"+likeEscaper.Replace(strings.ToLower(f.Name))+"%")
	}
	switch f.Kind {
	case "image":
		where += ` AND content_type LIKE 'image/%'`
	case "other":
		where += ` AND content_type NOT LIKE 'image/%'`
	}
	items, total, err := list(x.tx, scanUpload, opt,
		`SELECT COUNT(*)`+where,
		`SELECT `+uploadColumns+where+` ORDER BY created_at DESC, id DESC`,
		args...)
	if err != nil {
		return nil, 0, x.fail(err, "find uploads of site "+siteID, "")
	}
	return items, total, nil
}

// likeEscaper escapes what LIKE reads as wildcards, with \ as the escape.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func (x uploads) Replace(u *store.Upload) error {
	op := "replace upload " + u.ID + " of site " + u.SiteID
	res, err := x.exec(`UPDATE uploads SET blob_key = ?, filename = ?, content_type = ?, size = ?, checksum = ?,
		width = ?, height = ? WHERE site_id = ? AND id = ?`,
		u.Key, u.Filename, u.ContentType, u.Size, u.Checksum, u.Width, u.Height, u.SiteID, u.ID)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x uploads) Delete(siteID, id string) error {
	op := "delete upload " + id + " of site " + siteID
	res, err := x.exec(`DELETE FROM uploads WHERE site_id = ? AND id = ?`, siteID, id)
	if err != nil {
		return x.fail(err, op, "")
	}
	return x.mustAffect(res, op)
}

func (x uploads) Expired(t time.Time, limit int) ([]*store.Upload, error) {
	rows, err := x.query(`SELECT `+uploadColumns+` FROM uploads WHERE expires_at IS NOT NULL AND expires_at <= ?
		ORDER BY expires_at, id LIMIT ?`, x.time(t), limit)
	if err != nil {
		return nil, x.fail(err, "list expired uploads", "")
	}
	defer rows.Close()
	var out []*store.Upload
	for rows.Next() {
		u, err := scanUpload(rows)
		if err != nil {
			return nil, x.fail(err, "list expired uploads", "")
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, x.fail(err, "list expired uploads", "")
	}
	return out, nil
}
