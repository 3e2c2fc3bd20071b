package apitest_test

import "github.com/tessera-cms/tessera/internal/apitest"

// The fixtures this package shares with internal/editortest
// (apitest/fixtures.go), under the names the scenarios use.

type (
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
	runOne            = apitest.RunJob
	signIn            = apitest.SignIn
	sessionCookieOf   = apitest.SessionCookieOf
	eachEditorBackend = apitest.EachStore
	elBenchBackend    = apitest.BenchBackend
)
