/// A stage's failure that can tell a pool refused its work: the queue was full, or the pool was
/// shutting down. A failure type with an `overloaded` case has it.
public protocol PoolRefusal: Error {
    static var overloaded: Self { get }
}
