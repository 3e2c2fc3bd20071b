// The demo site's cloud code: a page for each blog post, and the contact
// form. The site's locales and their URL prefixes.
const LOCALES = [['en', ''], ['nl', '/nl']]

// /blog/<slug> (and /nl/blog/<slug>): the post template with the post's
// slug, or the theme's 404 page (status 404) for a slug no post has. The template reads the post from channels.articles in the URL's
// locale; the title and the language switch are set here, since the page
// has no page record of its own.
for (const [locale, prefix] of LOCALES) {
  Service.Cloud.get(prefix + '/blog/:slug', async (request, response) => {
    const post = await Service.Query('articles').equalTo('slug', request.params.slug).first()
    if (!post) return response.render('404', {page: {title: locale === 'nl' ? 'Pagina niet gevonden' : 'Page not found'}}, 404)
    const local = (post.translations && post.translations[locale]) || {}
    response.render('post', {
      slug: post.slug,
      page: {title: local.title || post.title, seo_description: local.summary || post.summary},
      locales: LOCALES.map(([code, p]) => ({code, url: p + '/blog/' + post.slug, current: code === locale})),
    })
  })
}

// The contact form posts to its own page. A message is kept in the
// messages channel (the editor lists them) and mailed to the address in
// the app's CONTACT_TO setting; the visitor goes back to the page with
// ?sent=1 (the thank-you state) or ?error=1.
for (const [locale, prefix] of LOCALES) {
  Service.Cloud.post(prefix + '/contact', async (request, response) => {
    const back = prefix + '/contact'
    const p = request.params
    if (p.website) return response.redirect_to(back + '?sent=1') // only robots fill the hidden field
    const name = String(p.name || '').trim().slice(0, 200)
    const email = String(p.email || '').trim().slice(0, 200)
    const message = String(p.message || '').trim().slice(0, 5000)
    if (!name || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || !message) return response.redirect_to(back + '?error=1')
    await Service.Object('messages', {name, email, message, locale}).save()
    const to = (await Service.Site.env.get('CONTACT_TO')) || 'admin@example.com'
    await Mail.send({to, subject: 'Contact form: ' + name,
      text: 'From: ' + name + ' <' + email + '>\nLanguage: ' + locale + '\n\n' + message})
    response.redirect_to(back + '?sent=1')
  })
}
