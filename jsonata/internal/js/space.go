package js

// Space holds the characters JavaScript counts as white space (WhiteSpace
// and LineTerminator): what String.prototype.trim and Number() strip and
// what \s matches in a regular expression. Every character stands alone,
// so Space can be written between brackets as a regular expression class.
const Space = " \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
