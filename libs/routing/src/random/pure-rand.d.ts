declare module 'pure-rand/generator/xoroshiro128plus' {
  export * from 'pure-rand/lib/generator/xoroshiro128plus';
}
declare module 'pure-rand/distribution/uniformFloat64' {
  export * from 'pure-rand/lib/distribution/uniformFloat64';
}
