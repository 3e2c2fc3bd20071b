package store

import "time"

// App is an app of a site: its settings and compiled registrations as a
// document owned by package apps, looked up by its key.
type App struct {
	ID        string
	SiteID    string
	Key       string
	Doc       []byte
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppFile is one cloud code file of an app.
type AppFile struct {
	SiteID    string
	AppID     string
	Name      string
	Code      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// AppLog is one line an app's code logged.
type AppLog struct {
	ID      string
	SiteID  string
	AppID   string
	Time    time.Time
	Level   string
	Message string
	// Context is a JSON object: what ran (function, job and its jid, …).
	Context []byte
}

// AppLogFilter narrows a log listing; zero fields do not filter.
type AppLogFilter struct {
	Since, Before time.Time
	Level         string
	// Query keeps lines whose message contains it.
	Query string
}

// Apps stores apps, their code files and their logs, scoped to a site.
// Deleting an app deletes its files and logs.
type Apps interface {
	// Create stores a new app. EConflict when the site has the key.
	Create(a *App) error
	// Get returns the app with the key. ENotFound.
	Get(siteID, key string) (*App, error)
	// List returns the site's apps by key, and their count.
	List(siteID string, opt ListOptions) ([]*App, int, error)
	// Update replaces the app if its updated_at still equals prev. ErrStale, ENotFound.
	Update(a *App, prev time.Time) error
	// Delete removes an app with its files and logs. ENotFound.
	Delete(siteID, id string) error
	// PutFile creates or replaces a file, keeping the stored created_at
	// (written back into f).
	PutFile(f *AppFile) error
	// Files returns the app's files by name.
	Files(siteID, appID string) ([]*AppFile, error)
	// GetFile returns one file. ENotFound.
	GetFile(siteID, appID, name string) (*AppFile, error)
	// DeleteFile removes one file. ENotFound.
	DeleteFile(siteID, appID, name string) error
	// AppendLog stores one log line.
	AppendLog(l *AppLog) error
	// Logs returns the app's log lines matching f, newest first, at most limit.
	Logs(siteID, appID string, f AppLogFilter, limit int) ([]*AppLog, error)
}
