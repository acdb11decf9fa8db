/* A small, generic protobuf binary decoder for the replay viewer: no library, no network.
 *
 * `botarenaProtobuf.decode(schema, bytes)` reads binary protobuf (a Uint8Array) into the
 * object Python's `json_format.MessageToDict` makes of the same message: the proto3 JSON
 * mapping (docs/replays.md, "Browser renderers"). The schema is the table the page embeds,
 * made from the message descriptors by viewers/_schema.py (its docstring describes it):
 * nothing here knows a game, so a new game's messages need no change.
 *
 * The mapping, as json_format writes it: each field's json_name (lowerCamelCase); a
 * field without presence left out at its default, one with presence (a message, an
 * `optional` or a oneof member) kept when set, a repeated or map field left out when
 * empty; enums as value names (an unknown number stays a number); int64, uint64,
 * (s)fixed64 and sint64 as decimal strings; bytes as base64; float as the shortest
 * decimal that reads back to the same float32; NaN and infinities as strings; Timestamp
 * as RFC 3339 and Duration as "1.5s" with 0, 3, 6 or 9 fractional digits; wrappers as
 * their value; FieldMask, Struct, Value and ListValue as JSON. Packed and unpacked repeated
 * scalars both read; a singular message seen twice is merged; unknown fields are skipped.
 */
"use strict";

(() => {
  // FieldDescriptor.TYPE_* numbers.
  const DOUBLE = 1, FLOAT = 2, INT64 = 3, UINT64 = 4, INT32 = 5, FIXED64 = 6, FIXED32 = 7;
  const BOOL = 8, STRING = 9, MESSAGE = 11, BYTES = 12, UINT32 = 13, ENUM = 14;
  const SFIXED32 = 15, SFIXED64 = 16, SINT32 = 17, SINT64 = 18;
  // Field rules (viewers/_schema.py).
  const PRESENCE = 1, REPEATED = 2, MAP = 3;
  // The wire type each scalar type is written with.
  const WIRE_TYPE = { 1: 1, 2: 5, 3: 0, 4: 0, 5: 0, 6: 1, 7: 5, 8: 0, 9: 2, 11: 2, 12: 2, 13: 0, 14: 0, 15: 5, 16: 1, 17: 0, 18: 0 };
  const TWO_32 = 4294967296;
  const utf8 = new TextDecoder("utf-8", { fatal: true });

  class DecodeError extends Error {}

  // ---------------------------------------------------------------- the schema

  const compiled = new WeakMap();

  /** The schema with each message's fields by number, made once per schema object. */
  function compile(schema) {
    let done = compiled.get(schema);
    if (done) return done;
    const enums = schema.enums.map(([name, closed, values]) => ({ name, closed: Boolean(closed), values }));
    const messages = schema.messages.map(([name, special, rows]) => {
      const fields = rows.map(([number, json, type, rule, ref = -1, oneof = -1], index) => (
        { index, number, json, type, rule, ref, oneof, wire: WIRE_TYPE[type] }
      ));
      const byNumber = new Map(fields.map((field) => [field.number, field]));
      return { name, special, fields, byNumber };
    });
    for (const message of messages) {
      for (const field of message.fields) {
        if (field.type === MESSAGE) field.message = messages[field.ref];
        if (field.type === ENUM) field.enum = enums[field.ref];
        if (field.wire === undefined) throw new DecodeError(`${message.name}: field ${field.number} has type ${field.type}, which this decoder does not read`);
      }
    }
    done = { messages, enums };
    compiled.set(schema, done);
    return done;
  }

  // ---------------------------------------------------------------- the wire

  class Reader {
    constructor(bytes) {
      this.bytes = bytes;
      this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.pos = 0;
      this.lo = 0; // the last varint's low and high 32 bits, unsigned
      this.hi = 0;
    }

    truncated() {
      return new DecodeError(`truncated message at byte ${this.pos}`);
    }

    need(count, end) {
      if (count < 0 || this.pos + count > end) throw this.truncated();
    }

    /** Read a varint into lo and hi; return lo. */
    varint(end) {
      const bytes = this.bytes;
      let pos = this.pos;
      let lo = 0;
      let hi = 0;
      let byte;
      for (let shift = 0; shift < 28; shift += 7) {
        if (pos >= end) throw this.truncated();
        byte = bytes[pos++];
        lo |= (byte & 0x7f) << shift;
        if (byte < 0x80) return this.done(pos, lo, 0);
      }
      if (pos >= end) throw this.truncated();
      byte = bytes[pos++];
      lo |= (byte & 0x0f) << 28;
      hi = (byte & 0x7f) >> 4;
      if (byte < 0x80) return this.done(pos, lo, hi);
      for (let shift = 3; shift < 32; shift += 7) {
        if (pos >= end) throw this.truncated();
        byte = bytes[pos++];
        hi |= (byte & 0x7f) << shift;
        if (byte < 0x80) return this.done(pos, lo, hi);
      }
      throw new DecodeError(`a varint longer than 10 bytes at byte ${this.pos}`);
    }

    done(pos, lo, hi) {
      this.pos = pos;
      this.lo = lo >>> 0;
      this.hi = hi >>> 0;
      return this.lo;
    }

    /** A length prefix: the end of what it covers. */
    length(end) {
      const length = this.varint(end);
      if (this.hi !== 0 || length > end - this.pos) throw this.truncated();
      return this.pos + length;
    }

    fixed32(end) {
      this.need(4, end);
      this.lo = this.view.getUint32(this.pos, true);
      this.pos += 4;
      return this.lo;
    }

    fixed64(end) {
      this.need(8, end);
      this.lo = this.view.getUint32(this.pos, true);
      this.hi = this.view.getUint32(this.pos + 4, true);
      this.pos += 8;
    }

    /** Skip a field of wire type `wire` (the tag read). */
    skip(wire, number, end) {
      switch (wire) {
        case 0: this.varint(end); return;
        case 1: this.need(8, end); this.pos += 8; return;
        case 2: this.pos = this.length(end); return;
        case 5: this.need(4, end); this.pos += 4; return;
        case 3:
          for (;;) {
            const tag = this.varint(end);
            if ((tag & 7) === 4) {
              if (tag >>> 3 !== number) throw new DecodeError(`a group ${number} closed as ${tag >>> 3}`);
              return;
            }
            this.skip(tag & 7, tag >>> 3, end);
          }
        default:
          throw new DecodeError(`wire type ${wire} at byte ${this.pos}`);
      }
    }
  }

  /** The unsigned 64-bit number hi:lo in decimal. */
  function unsigned64(lo, hi) {
    if (hi < 0x200000) return String(hi * TWO_32 + lo);
    return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
  }

  /** The two's complement 64-bit number hi:lo in decimal. */
  function signed64(lo, hi) {
    if (hi < 0x80000000) return unsigned64(lo, hi);
    return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
  }

  function zigzag64(lo, hi) {
    const value = (BigInt(hi) << 32n) | BigInt(lo);
    return ((value >> 1n) ^ -(value & 1n)).toString();
  }

  function base64(bytes) {
    let text = "";
    for (let start = 0; start < bytes.length; start += 0x8000) {
      text += String.fromCharCode.apply(null, bytes.subarray(start, start + 0x8000));
    }
    return btoa(text);
  }

  /** One scalar of `field` from the reader (its wire type checked by the caller). */
  function scalar(reader, field, end) {
    switch (field.type) {
      case INT32: reader.varint(end); return reader.lo | 0;
      case UINT32: return reader.varint(end);
      case ENUM: reader.varint(end); return reader.lo | 0;
      case SINT32: { const value = reader.varint(end); return (value >>> 1) ^ -(value & 1); }
      case BOOL: reader.varint(end); return reader.lo !== 0 || reader.hi !== 0;
      case INT64: reader.varint(end); return signed64(reader.lo, reader.hi);
      case UINT64: reader.varint(end); return unsigned64(reader.lo, reader.hi);
      case SINT64: reader.varint(end); return zigzag64(reader.lo, reader.hi);
      case FIXED32: return reader.fixed32(end);
      case SFIXED32: return reader.fixed32(end) | 0;
      case FLOAT: reader.need(4, end); reader.pos += 4; return reader.view.getFloat32(reader.pos - 4, true);
      case DOUBLE: reader.need(8, end); reader.pos += 8; return reader.view.getFloat64(reader.pos - 8, true);
      case FIXED64: reader.fixed64(end); return unsigned64(reader.lo, reader.hi);
      case SFIXED64: reader.fixed64(end); return signed64(reader.lo, reader.hi);
      case STRING: {
        const stop = reader.length(end);
        const start = reader.pos;
        reader.pos = stop;
        return stop === start ? "" : utf8.decode(reader.bytes.subarray(start, stop));
      }
      case BYTES: {
        const stop = reader.length(end);
        const start = reader.pos;
        reader.pos = stop;
        return base64(reader.bytes.subarray(start, stop));
      }
      default:
        throw new DecodeError(`field type ${field.type}`);
    }
  }

  /** Whether a closed enum drops `value` (as protobuf does: it is an unknown field then). */
  function dropped(field, value) {
    return field.type === ENUM && field.enum.closed && !(value in field.enum.values);
  }

  // ---------------------------------------------------------------- decoding

  /** Decode one message's fields from reader.pos to end into `raw` (by field index). */
  function decodeInto(reader, end, message, raw, depth) {
    if (depth > 100) throw new DecodeError("messages nested over 100 deep");
    while (reader.pos < end) {
      const tag = reader.varint(end);
      const wire = tag & 7;
      const number = tag >>> 3;
      if (number === 0) throw new DecodeError(`field number 0 at byte ${reader.pos}`);
      const field = message.byNumber.get(number);
      if (field === undefined || wire === 4) {
        if (wire === 4) throw new DecodeError(`an unopened group ends at byte ${reader.pos}`);
        reader.skip(wire, number, end);
        continue;
      }
      if (field.type === MESSAGE) {
        if (wire !== 2) {
          reader.skip(wire, number, end);
          continue;
        }
        const stop = reader.length(end);
        if (field.rule === MAP) {
          const entry = decodeInto(reader, stop, field.message, [], depth + 1);
          const map = raw[field.index] || (raw[field.index] = new Map());
          map.set(mapKey(field.message.fields[0], entry[0]), entry[1]);
        } else if (field.rule === REPEATED) {
          const list = raw[field.index] || (raw[field.index] = []);
          list.push(decodeInto(reader, stop, field.message, [], depth + 1));
        } else {
          if (field.oneof >= 0) clearOneof(message, field, raw);
          raw[field.index] = decodeInto(reader, stop, field.message, raw[field.index] || [], depth + 1);
        }
        reader.pos = stop;
        continue;
      }
      if (field.rule === REPEATED) {
        const list = raw[field.index] || (raw[field.index] = []);
        if (wire === 2 && field.wire !== 2) {
          const stop = reader.length(end);
          while (reader.pos < stop) {
            const value = scalar(reader, field, stop);
            if (!dropped(field, value)) list.push(value);
          }
        } else if (wire === field.wire) {
          const value = scalar(reader, field, end);
          if (!dropped(field, value)) list.push(value);
        } else {
          reader.skip(wire, number, end);
        }
        continue;
      }
      if (wire !== field.wire) {
        reader.skip(wire, number, end);
        continue;
      }
      const value = scalar(reader, field, end);
      if (dropped(field, value)) continue;
      if (field.oneof >= 0) clearOneof(message, field, raw);
      raw[field.index] = value;
    }
    if (reader.pos !== end) throw reader.truncated();
    return raw;
  }

  function clearOneof(message, field, raw) {
    for (const other of message.fields) {
      if (other.oneof === field.oneof && other !== field) raw[other.index] = undefined;
    }
  }

  /** A map key as json_format writes it: its str(). */
  function mapKey(field, value) {
    if (value === undefined) return field.type === BOOL ? "false" : field.type === STRING ? "" : "0";
    return String(value);
  }

  // ---------------------------------------------------------------- proto3 JSON

  /** Whether a field without presence holds its default (then it is left out). */
  function isDefault(field, value) {
    switch (field.type) {
      case DOUBLE: case FLOAT: return value === 0 && !Object.is(value, -0);
      case BOOL: return value === false;
      case STRING: case BYTES: return value === "";
      case INT64: case UINT64: case SINT64: case FIXED64: case SFIXED64: return value === "0";
      default: return value === 0;
    }
  }

  /**
   * `value` rounded to `precision` significant digits as Python's "%.{precision}g" does:
   * toPrecision rounds a tie (an exact ...5) away from zero, Python to the even digit.
   */
  function roundHalfEven(value, precision) {
    const [mantissa, exponent] = Math.abs(value).toExponential(99).split("e");
    const digits = mantissa.replace(".", ""); // 100 exact digits: a float32 has fewer
    const tie = digits[precision] === "5" && /^0*$/.test(digits.slice(precision + 1));
    if (!tie || Number(digits[precision - 1]) % 2 === 1) return Number(value.toPrecision(precision));
    const kept = `${digits[0]}.${digits.slice(1, precision)}e${exponent}`;
    return value < 0 ? -Number(kept) : Number(kept);
  }

  /** The shortest decimal that reads back as the same float32 (type_checkers.ToShortestFloat). */
  function shortestFloat(value) {
    if (value === 0) return value;
    for (let precision = 6; precision < 17; precision++) {
      const rounded = roundHalfEven(value, precision);
      if (Math.fround(rounded) === value) return rounded;
    }
    return value;
  }

  function number(value, float) {
    if (Number.isNaN(value)) return "NaN";
    if (value === Infinity) return "Infinity";
    if (value === -Infinity) return "-Infinity";
    return float ? shortestFloat(value) : value;
  }

  /** A field's value (one element of a repeated field) as proto3 JSON. */
  function fieldJson(field, value) {
    switch (field.type) {
      case MESSAGE: return messageJson(field.message, value);
      case ENUM: {
        if (field.enum.name === "google.protobuf.NullValue") return null;
        const name = field.enum.values[value];
        return name === undefined ? value : name;
      }
      case FLOAT: return number(value, true);
      case DOUBLE: return number(value, false);
      default: return value;
    }
  }

  /** The default of a field that was never on the wire, as its raw value. */
  function defaultRaw(field) {
    switch (field.type) {
      case MESSAGE: return [];
      case BOOL: return false;
      case STRING: case BYTES: return "";
      case INT64: case UINT64: case SINT64: case FIXED64: case SFIXED64: return "0";
      default: return 0;
    }
  }

  function rawOrDefault(field, raw) {
    const value = raw[field.index];
    return value === undefined ? defaultRaw(field) : value;
  }

  function fraction(nanos) {
    if (nanos === 0) return "";
    if (nanos % 1e6 === 0) return "." + String(nanos / 1e6).padStart(3, "0");
    if (nanos % 1e3 === 0) return "." + String(nanos / 1e3).padStart(6, "0");
    return "." + String(nanos).padStart(9, "0");
  }

  function timestampJson(message, raw) {
    const seconds = Number(rawOrDefault(message.fields[0], raw));
    const nanos = rawOrDefault(message.fields[1], raw);
    if (seconds < -62135596800 || seconds > 253402300799) {
      throw new DecodeError(`Timestamp is not valid: Seconds ${seconds} must be in range [-62135596800, 253402300799].`);
    }
    if (nanos < 0 || nanos >= 1e9) throw new DecodeError(`Timestamp is not valid: Nanos ${nanos} must be in range [0, 999999999].`);
    return new Date(seconds * 1000).toISOString().slice(0, 19) + fraction(nanos) + "Z";
  }

  function durationJson(message, raw) {
    const seconds = Number(rawOrDefault(message.fields[0], raw));
    const nanos = rawOrDefault(message.fields[1], raw);
    if (seconds < -315576000000 || seconds > 315576000000) {
      throw new DecodeError(`Duration is not valid: Seconds ${seconds} must be in range [-315576000000, 315576000000].`);
    }
    if (nanos <= -1e9 || nanos >= 1e9) throw new DecodeError(`Duration is not valid: Nanos ${nanos} must be in range [-999999999, 999999999].`);
    if ((nanos < 0 && seconds > 0) || (nanos > 0 && seconds < 0)) throw new DecodeError("Duration is not valid: Sign mismatch.");
    const sign = seconds < 0 || nanos < 0 ? "-" : "";
    return `${sign}${Math.abs(seconds)}${fraction(Math.abs(nanos))}s`;
  }

  function fieldMaskJson(message, raw) {
    return (raw[0] || []).map((path) => {
      if (/[A-Z]/.test(path) || /_(?![a-z])/.test(path)) {
        throw new DecodeError(`Fail to print FieldMask to Json string: Path name ${path} is not snake_case.`);
      }
      return path.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase());
    }).join(",");
  }

  function valueJson(message, raw) {
    const set = message.fields.find((field) => raw[field.index] !== undefined);
    if (set === undefined) return null;
    const value = fieldJson(set, raw[set.index]);
    if (set.type === DOUBLE && typeof value === "string") {
      throw new DecodeError(`Fail to serialize ${value} for Value.number_value, which would parse as string_value`);
    }
    return value;
  }

  /** A message's raw fields (by index) as proto3 JSON. */
  function messageJson(message, raw) {
    switch (message.special) {
      case "timestamp": return timestampJson(message, raw);
      case "duration": return durationJson(message, raw);
      case "wrapper": return fieldJson(message.fields[0], rawOrDefault(message.fields[0], raw));
      case "fieldmask": return fieldMaskJson(message, raw);
      case "value": return valueJson(message, raw);
      case "listvalue": return (raw[0] || []).map((value) => messageJson(message.fields[0].message, value));
      case "struct": {
        const out = {};
        const entry = message.fields[0].message;
        for (const [key, value] of raw[0] || []) out[key] = messageJson(entry.fields[1].message, value || []);
        return out;
      }
      default: break;
    }
    const out = {};
    for (const field of message.fields) {
      const value = raw[field.index];
      if (value === undefined) continue;
      if (field.rule === REPEATED) {
        if (value.length) out[field.json] = value.map((item) => fieldJson(field, item));
      } else if (field.rule === MAP) {
        const entries = {};
        const valueField = field.message.fields[1];
        for (const [key, item] of value) {
          entries[key] = fieldJson(valueField, item === undefined ? defaultRaw(valueField) : item);
        }
        out[field.json] = entries;
      } else if (field.rule === PRESENCE || !isDefault(field, value)) {
        out[field.json] = fieldJson(field, value);
      }
    }
    return out;
  }

  /**
   * Decode `bytes` (a Uint8Array of binary protobuf) as the schema's root message (or
   * the message named `root`) into its proto3 JSON object.
   */
  function decode(schema, bytes, root) {
    const { messages } = compile(schema);
    const message = root === undefined ? messages[0] : messages.find((m) => m.name === root);
    if (message === undefined) throw new DecodeError(`no message ${root} in the schema`);
    const reader = new Reader(bytes);
    return messageJson(message, decodeInto(reader, bytes.length, message, [], 0));
  }

  window.botarenaProtobuf = Object.freeze({ decode, DecodeError });
})();
