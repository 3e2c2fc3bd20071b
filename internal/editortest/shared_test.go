package editortest_test

import "github.com/tessera-cms/tessera/internal/apitest"

// The fixtures the editor's journeys share with the conformance scenarios
// (apitest/fixtures.go), under the names the journeys use.

type (
	obj       = map[string]any
	session   = apitest.Session
	elBenchDB = apitest.BenchDB
)

var (
	mustDo            = apitest.MustDo
	createPage        = apitest.CreatePage
	getPage           = apitest.GetPage
	putPage           = apitest.PutPage
	api               = apitest.API
	pageID            = apitest.PageID
	visit             = apitest.VisitWWW
	dig               = apitest.Dig
	str               = apitest.Str
	checkJSON         = apitest.CheckJSON
	testPNG           = apitest.PNG
	md5hex            = apitest.MD5Hex
	fetch             = apitest.FetchFile
	basic             = apitest.BasicAuth
	runJobs           = apitest.RunJobs
	signIn            = apitest.SignIn
	sessionCookieOf   = apitest.SessionCookieOf
	eachBackend       = apitest.EachStore
	eachEditorBackend = apitest.EachStore
	elBenchBackend    = apitest.BenchBackend
)
