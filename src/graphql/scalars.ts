import { GraphQLError, Kind } from 'graphql';
import { builder } from './builder.ts';
import { validateMetadata } from '../core/validation.ts';
import { moneyJson } from '../core/money.ts';

const bad = (message: string) => new GraphQLError(message, { extensions: { code: 'validation_error' } });

// GraphQL Int is 32-bit; amounts reach 2^53 - 1 (a rupiah ledger passes 2^31 quickly).
builder.scalarType('Money', {
  description:
    'Integer amount in the smallest currency unit, serialized as a JSON integer. Inputs are at most 2^53 - 1; ' +
    'sums (balances, reports) may exceed it and are then exact JSON integers beyond what a float holds.',
  // Exact at any size (moneyJson): a balance past 2^53 was a 500 when converted through Number.
  serialize: (v) => moneyJson(v as bigint | number),
  parseValue: (v) => {
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw bad('Money must be an integer');
    return v;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw bad('Money must be an integer');
    const n = Number(ast.value);
    if (!Number.isSafeInteger(n)) throw bad('Money out of range');
    return n;
  },
});

builder.scalarType('DateTime', {
  description: 'ISO 8601 UTC instant with milliseconds.',
  serialize: (v) => (v instanceof Date ? v.toISOString() : new Date(v).toISOString()),
  parseValue: (v) => {
    const d = typeof v === 'number' ? new Date(v * 1000) : new Date(String(v));
    if (Number.isNaN(d.getTime())) throw bad('Invalid timestamp');
    return d;
  },
});

builder.scalarType('JSON', {
  serialize: (v) => v,
  parseValue: (v) => v,
});

builder.scalarType('Metadata', {
  description: 'String-to-string pairs: at most 50 keys, keys up to 40 characters, values up to 500.',
  serialize: (v) => v,
  parseValue: (v) => validateMetadata(v, 'metadata'),
});
