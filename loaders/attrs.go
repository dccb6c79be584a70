package loaders

// Episode attributes, in rowValues order.
const (
	aGroup = iota
	aTime
	aSpeaker
	aBody
	aSource
	aDescription
	aRecordKey
	aName
	nAttrs
)

// field returns the input field name of attribute a.
func (m *Mapping) field(a int) string {
	return [nAttrs]string{m.Group, m.ReferenceTime, m.Speaker, m.Body, m.Source, m.Description,
		m.RecordKey, m.Name}[a]
}

// set stores the value of attribute a.
func (v *rowValues) set(a int, x any) {
	switch a {
	case aGroup:
		v.group = x
	case aTime:
		v.refTime = x
	case aSpeaker:
		v.speaker = x
	case aBody:
		v.body = x
	case aSource:
		v.source = x
	case aDescription:
		v.description = x
	case aRecordKey:
		v.recordKey = x
	case aName:
		v.name = x
	}
}
