package worker

import "github.com/dop251/goja"

// objectPrelude builds Service.Object in JavaScript over two natives
// (save and destroy), so that the object semantics cloud code relies on
// (set/unset/increment, hasChanged, previous, changedAttributes) are the
// language's own. It is compiled once and run in every runtime.
const objectPrelude = `(function (native) {
  function extend(slug) {
    function Obj(attrs) {
      if (!(this instanceof Obj)) return new Obj(attrs)
      this.className = slug
      this.attributes = Object.assign({}, attrs || {})
      this.id = this.attributes.id
      this._previous = this.id ? Object.assign({}, this.attributes) : {}
      this._changed = {}
      if (!this.id) for (const k in this.attributes) this._changed[k] = true
    }
    Obj.prototype.get = function (k) { return this.attributes[k] }
    Obj.prototype.has = function (k) { return this.attributes[k] !== undefined && this.attributes[k] !== null }
    Obj.prototype.set = function (k, v) {
      if (k !== null && typeof k === 'object') { for (const x in k) this.set(x, k[x]); return this }
      this.attributes[k] = v
      this._changed[k] = true
      return this
    }
    Obj.prototype.unset = function (k) { return this.set(k, null) }
    Obj.prototype.increment = function (k, n) { return this.set(k, (Number(this.attributes[k]) || 0) + (n === undefined ? 1 : n)) }
    Obj.prototype.hasChanged = function (k) { return k === undefined ? Object.keys(this._changed).length > 0 : !!this._changed[k] }
    Obj.prototype.changedAttributes = function () {
      const out = {}
      for (const k in this._changed) out[k] = this.attributes[k]
      return Object.keys(out).length ? out : false
    }
    Obj.prototype.previous = function (k) { return this._previous[k] }
    Obj.prototype.previousAttributes = function () { return Object.assign({}, this._previous) }
    Obj.prototype.save = async function (attrs) {
      if (attrs) this.set(attrs)
      const body = this.changedAttributes() || {}
      delete body.id
      const saved = native.save(slug, this.id || '', body)
      this.attributes = saved
      this._previous = Object.assign({}, saved)
      this._changed = {}
      this.id = saved.id
      return this
    }
    Obj.prototype.destroy = async function () {
      if (!this.id) throw new Error('Service.Object: destroy of an object never saved')
      native.destroy(slug, this.id)
      return this
    }
    Obj.prototype.toJSON = function () { return Object.assign({}, this.attributes) }
    return Obj
  }
  const ObjectFn = function (slug, attrs) { return new (extend(slug))(attrs) }
  ObjectFn.extend = extend
  return ObjectFn
})`

var objectProgram = goja.MustCompile("sdk/object.js", objectPrelude, true)
