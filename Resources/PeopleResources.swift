import Foundation

/// Locates the sample data shipped in the top-level `Resources/` folder.
public enum PeopleResources {
    /// The JSON file of sample people that seeds a new store.
    public static var samplePeopleURL: URL? {
        Bundle.module.url(forResource: "SamplePeople", withExtension: "json")
    }

    /// The app's data model in Xcode's format (`People.xcdatamodeld`).
    public static var modelURL: URL? {
        Bundle.module.url(forResource: "People", withExtension: "xcdatamodeld")
    }
}
