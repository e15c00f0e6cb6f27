import CZlib
import Foundation

/// Raw DEFLATE streams (no zlib or gzip header: window bits −15), as Core Data writes a store's model cache
/// (`Z_MODELCACHE.Z_CONTENT`), through zlib: inflated to read the cache, deflated by tests to write one.
package enum RawDeflate {
    /// Why a stream could not be inflated.
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let message: String
        package var description: String { message }
    }

    /// The inflated bytes of `compressed`, at most `limit` of them.
    ///
    /// - Throws: ``Failure`` for a damaged or truncated stream, or one that inflates past `limit`.
    package static func inflate(_ compressed: Data, limit: Int) throws(Failure) -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure(message: "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var input = [UInt8](compressed)
        let count = input.count
        var status: Int32 = Z_OK
        try input.withUnsafeMutableBufferPointer { source throws(Failure) in
            stream.next_in = source.baseAddress
            stream.avail_in = uInt(count)
            repeat {
                let produced = chunk.withUnsafeMutableBufferPointer { target -> Int in
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END || (status == Z_BUF_ERROR && produced > 0) else {
                    throw Failure(message: "the compressed data is damaged (zlib status \(status))")
                }
                output.append(contentsOf: chunk[0..<produced])
                guard output.count <= limit else {
                    throw Failure(message: "it inflates to more than \(limit) bytes")
                }
                if status != Z_STREAM_END && produced == 0 && stream.avail_in == 0 {
                    throw Failure(message: "the compressed data ends early")
                }
            } while status != Z_STREAM_END
        }
        return output
    }

    /// `bytes` compressed as a raw DEFLATE stream.
    package static func deflate(_ bytes: Data) -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
            Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return Data() }
        defer { deflateEnd(&stream) }
        var input = [UInt8](bytes)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 64)
        let written = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target -> Int in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = uInt(target.count)
                return CZlib.deflate(&stream, Z_FINISH) == Z_STREAM_END ? target.count - Int(stream.avail_out) : 0
            }
        }
        return Data(output[0..<written])
    }
}
